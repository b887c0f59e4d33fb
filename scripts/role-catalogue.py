#!/usr/bin/env python3
"""Regenerate a release's role catalogue (src/core/roles/roles-<release>.json) from MW/role.py.

Reads `src/middlewared/middlewared/role.py` at a git ref of the truenas/middleware mirror, runs only
its `Role` dataclass, its `ROLES = {...}` literal and the `ROLES[...] = ...` statements after it
(READONLY_ADMIN), with STIGType stood in for (MW/utils/security.py: GPOS = 1), and writes the roles
in ROLES' order as {name: {includes, full_admin, builtin, stig}} — stig 1 or null, as
`privilege.roles` reports it.

    python3 scripts/role-catalogue.py stable/26 src/core/roles/roles-26.0.json
    python3 scripts/role-catalogue.py TS-25.10.1 -          # to stdout, e.g. to diff

The mirror is $MW_MIRROR, else /work/.mirror/truenas+middleware/repo.
"""
import ast
import enum
import json
import os
import subprocess
import sys
import typing
from dataclasses import dataclass, field

MIRROR = os.environ.get('MW_MIRROR', '/work/.mirror/truenas+middleware/repo')
ROLE_PY = 'src/middlewared/middlewared/role.py'


class STIGType(enum.IntFlag):
    GPOS = 1


def roles_at(ref: str) -> dict:
    source = subprocess.run(['git', '-C', MIRROR, 'show', f'{ref}:{ROLE_PY}'], check=True, capture_output=True, text=True).stdout
    tree = ast.parse(source)
    keep = []
    seen_roles = False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == 'Role':
            keep.append(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == 'ROLES' for t in node.targets):
            keep.append(node)
            seen_roles = True
        elif seen_roles and isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == 'ROLES' for t in node.targets
        ):
            keep.append(node)
    scope = {'dataclass': dataclass, 'field': field, 'typing': typing, 'STIGType': STIGType}
    exec(compile(ast.Module(body=keep, type_ignores=[]), f'{ref}:{ROLE_PY}', 'exec'), scope)
    return {
        name: {
            'includes': list(role.includes),
            'full_admin': bool(role.full_admin),
            'builtin': bool(role.builtin),
            'stig': None if role.stig is None else int(role.stig),
        }
        for name, role in scope['ROLES'].items()
    }


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ref, out = sys.argv[1], sys.argv[2]
    text = json.dumps(roles_at(ref), indent=1) + '\n'
    if out == '-':
        sys.stdout.write(text)
    else:
        with open(out, 'w') as f:
            f.write(text)
        print(f'{out}: {text.count(chr(10) + " " + chr(34))} roles from {ref}:{ROLE_PY}', file=sys.stderr)


if __name__ == '__main__':
    main()
