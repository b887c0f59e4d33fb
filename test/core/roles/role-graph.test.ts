import { describe, expect, it } from 'vitest';
import {
  createCatalogue,
  includedByDirectly,
  includedByInTotal,
  includesInTotal,
  inclusionTree,
  release25101Catalogue,
  topRoles,
} from '../../../src/core/roles/index.js';

const role = (name: string, includes: string[], fullAdmin = false) => ({
  name,
  includes,
  fullAdmin,
  builtin: false,
  stig: 1 as const,
});

/** A → B → C → A (a longer cycle), D → A and GHOST (undefined), FULL_ADMIN, SELF → SELF. */
const cyclic = createCatalogue([
  role('A', ['B']),
  role('B', ['C']),
  role('C', ['A']),
  role('D', ['A', 'GHOST']),
  role('SELF', ['SELF', 'C']),
  role('FULL_ADMIN', [], true),
]);

describe('the include graph read both ways', () => {
  it('walks a longer cycle once and marks where it closes', () => {
    expect(inclusionTree(cyclic, 'A')).toEqual({
      role: 'A',
      mark: null,
      children: [
        {
          role: 'B',
          mark: null,
          children: [{ role: 'C', mark: null, children: [{ role: 'A', mark: 'cycle', children: [] }] }],
        },
      ],
    });
    expect(inclusionTree(cyclic, 'D').children.map((c) => [c.role, c.mark])).toEqual([
      ['A', null],
      ['GHOST', 'unknown'],
    ]);
  });

  it('marks a role that lists itself as self, not as a cycle, and still follows its other includes', () => {
    const tree = inclusionTree(cyclic, 'SELF');
    expect(tree.children.map((c) => [c.role, c.mark])).toEqual([
      ['SELF', 'self'],
      ['C', null],
    ]);
    expect(tree.children[1]!.children[0]!.children[0]!.children[0]).toEqual({ role: 'C', mark: 'cycle', children: [] });
  });

  it('counts what a role grants in total, itself only when it includes itself', () => {
    expect(includesInTotal(cyclic, 'B').sort()).toEqual(['A', 'B', 'C']);
    expect(includesInTotal(cyclic, 'D').sort()).toEqual(['A', 'B', 'C']);
    expect(includesInTotal(cyclic, 'SELF').sort()).toEqual(['A', 'B', 'C', 'SELF']);
    expect(includesInTotal(cyclic, 'FULL_ADMIN')).toHaveLength(5);
  });

  it('finds who includes a role directly and in total (FULL_ADMIN grants every role)', () => {
    expect(includedByDirectly(cyclic, 'A')).toEqual(['C', 'D']);
    expect(includedByInTotal(cyclic, 'A')).toEqual(['A', 'B', 'C', 'D', 'SELF', 'FULL_ADMIN']);
    expect(includedByInTotal(cyclic, 'D')).toEqual(['FULL_ADMIN']);
    expect(includedByDirectly(cyclic, 'SELF')).toEqual(['SELF']);
    expect(topRoles(cyclic)).toEqual(['D', 'SELF', 'FULL_ADMIN']);
  });

  it('on 25.10.1: PRIVILEGE_WRITE includes only itself; READONLY_ADMIN reaches PRIVILEGE_READ (MW/role.py ROLES)', () => {
    const catalogue = release25101Catalogue();
    expect(inclusionTree(catalogue, 'PRIVILEGE_WRITE')).toEqual({
      role: 'PRIVILEGE_WRITE',
      mark: null,
      children: [{ role: 'PRIVILEGE_WRITE', mark: 'self', children: [] }],
    });
    expect(includesInTotal(catalogue, 'PRIVILEGE_WRITE')).toEqual(['PRIVILEGE_WRITE']);
    expect(includedByDirectly(catalogue, 'PRIVILEGE_READ')).toContain('READONLY_ADMIN');
    expect(includedByInTotal(catalogue, 'PRIVILEGE_WRITE')).toEqual(['PRIVILEGE_WRITE', 'FULL_ADMIN']);
  });
});
