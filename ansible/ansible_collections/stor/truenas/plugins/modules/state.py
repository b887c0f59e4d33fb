#!/usr/bin/python
from __future__ import annotations

DOCUMENTATION = r'''
module: state
short_description: Make an appliance match a desired-state file (stor plan / stor apply)
description:
  - Compares the appliance with a stor desired-state document (users, groups, privileges, datasets, snapshot tasks, replications, shares, API keys; docs/STATE.md).
  - In check mode runs C(stor plan) and changes nothing; otherwise C(stor apply --yes).
  - With C(--diff), shows each object that would change, field by field.
version_added: 0.1.0
extends_documentation_fragment: [stor.truenas.target]
options:
  src:
    description: A desired-state file on the controller (YAML or JSON), looked up as C(copy)'s src is.
    type: path
  state:
    description: The desired state inline, as a mapping or YAML text.
    type: raw
  prune:
    description: Also delete objects the state does not name, but only those stor made.
    type: bool
    default: false
  normalize:
    description: Plan the minimal role list where a privilege's roles overlap.
    type: bool
    default: false
  force:
    description: Plan it even if it locks a privilege's users out, leaves no administrator, or takes stor's own roles.
    type: bool
    default: false
  keep_going:
    description: After an object fails, go on with the others.
    type: bool
    default: false
  keys_out:
    description:
      - Where new API keys' secrets are written on the controller (0600, never over an existing file). Required when the state names C(api_keys).
    type: path
attributes:
  check_mode: {support: full}
  diff_mode: {support: full}
author: [stor developers]
'''

EXAMPLES = r'''
- name: Datasets and shares as the file says
  stor.truenas.state:
    src: nas-state.yaml

- name: Inline
  stor.truenas.state:
    state:
      datasets:
        - name: tank/projects
          comments: projects
'''

RETURN = r'''
changed:
  description: Whether the appliance differs from the state (check mode) or was changed.
  type: bool
  returned: always
plan:
  description: C(stor plan --json) (docs/STATE.md).
  type: dict
  returned: success
results:
  description: Each object's outcome (done, failed, not_attempted), as C(stor apply --json) reports it.
  type: list
  returned: when not in check mode
diff:
  description: One before/after pair per object that changes.
  type: list
  returned: success
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec={}, bypass_checks=True)
    module.fail_json(msg='stor.truenas.state runs on the controller through its action plugin')


if __name__ == '__main__':
    main()
