/**
 * `coverMethods` (core/roles/cover.ts): the least role list for methods, from the roles each
 * method's `core.get_methods` entry lists (every role granting it, MW/role.py:302-318).
 */
import { describe, expect, it } from 'vitest';
import {
  coverMethods,
  createCatalogue,
  includedByInTotal,
  shippedCatalogue,
  type RoleCatalogue,
} from '../../../src/core/roles/index.js';

/** What core.get_methods lists for a method whose own roles are `own`: those and every role whose grant contains one. */
const listed = (catalogue: RoleCatalogue, ...own: string[]) =>
  [...new Set(own.flatMap((r) => [r, ...includedByInTotal(catalogue, r)]))].sort();

const old = shippedCatalogue('25.10.1');
const next = shippedCatalogue('26.0');

describe('coverMethods', () => {
  it('a write method and its read: the write role alone, nothing broader (DATASET_WRITE includes DATASET_READ)', () => {
    const cover = coverMethods(old, [
      { method: 'pool.dataset.create', roles: listed(old, 'DATASET_WRITE') },
      { method: 'pool.dataset.query', roles: listed(old, 'DATASET_READ') },
    ]);
    expect(cover.roles).toEqual(['DATASET_WRITE']);
    expect(cover.grantedBy).toEqual({ 'pool.dataset.create': 'DATASET_WRITE', 'pool.dataset.query': 'DATASET_WRITE' });
    expect(cover.fullAdminOnly).toEqual([]);
  });

  it('methods of unrelated roles: one least role each, not a broad role that happens to grant both (READONLY_ADMIN)', () => {
    const cover = coverMethods(old, [
      { method: 'filesystem.stat', roles: listed(old, 'FILESYSTEM_ATTRS_READ') },
      { method: 'pool.dataset.query', roles: listed(old, 'DATASET_READ') },
    ]);
    expect(listed(old, 'DATASET_READ')).toContain('READONLY_ADMIN');
    expect(cover.roles).toEqual(['DATASET_READ', 'FILESYSTEM_ATTRS_READ']);
  });

  it('a method only FULL_ADMIN may call makes the answer FULL_ADMIN, naming that method', () => {
    const cover = coverMethods(old, [
      { method: 'filesystem.put', roles: ['FULL_ADMIN'] },
      { method: 'filesystem.stat', roles: listed(old, 'FILESYSTEM_ATTRS_READ') },
      { method: 'auth.me', roles: [] },
    ]);
    expect(cover).toEqual({
      roles: ['FULL_ADMIN'],
      fullAdminOnly: ['filesystem.put'],
      noRoleNeeded: ['auth.me'],
      grantedBy: { 'filesystem.put': 'FULL_ADMIN', 'filesystem.stat': 'FULL_ADMIN', 'auth.me': null },
    });
  });

  it('methods any logged-in user may call need no role: an empty list', () => {
    expect(coverMethods(old, [{ method: 'auth.me', roles: [] }])).toMatchObject({
      roles: [],
      noRoleNeeded: ['auth.me'],
    });
  });

  it('the catalogue decides: PRIVILEGE_WRITE grants PRIVILEGE_READ on 26.0 only (stable/26 MW/role.py:64)', () => {
    const grants = (c: RoleCatalogue) => [
      { method: 'privilege.update', roles: listed(c, 'PRIVILEGE_WRITE') },
      { method: 'privilege.query', roles: listed(c, 'PRIVILEGE_READ') },
    ];
    expect(coverMethods(old, grants(old)).roles).toEqual(['PRIVILEGE_READ', 'PRIVILEGE_WRITE']);
    expect(coverMethods(next, grants(next)).roles).toEqual(['PRIVILEGE_WRITE']);
  });

  it('a role to avoid (one that locks users out) is taken only when nothing else grants the method', () => {
    const c = createCatalogue([
      { name: 'FULL_ADMIN', includes: [], fullAdmin: true, builtin: true, stig: null },
      { name: 'A', includes: ['A'], fullAdmin: false, builtin: true, stig: null },
      { name: 'B', includes: [], fullAdmin: false, builtin: true, stig: null },
    ]);
    const avoid = (r: string) => c.isSelfIncluding(r);
    expect(coverMethods(c, [{ method: 'x.y', roles: ['A', 'B', 'FULL_ADMIN'] }], avoid).roles).toEqual(['B']);
    expect(coverMethods(c, [{ method: 'x.y', roles: ['A', 'B', 'FULL_ADMIN'] }]).roles).toEqual(['A']);
    expect(coverMethods(c, [{ method: 'x.y', roles: ['A', 'FULL_ADMIN'] }], avoid).roles).toEqual(['A']);
  });

  it('one role granting two methods beats two roles when it grants no more in total', () => {
    const c = createCatalogue([
      { name: 'FULL_ADMIN', includes: [], fullAdmin: true, builtin: true, stig: null },
      { name: 'R1', includes: [], fullAdmin: false, builtin: true, stig: null },
      { name: 'R2', includes: [], fullAdmin: false, builtin: true, stig: null },
      { name: 'BOTH', includes: [], fullAdmin: false, builtin: true, stig: null },
    ]);
    const cover = coverMethods(c, [
      { method: 'a.x', roles: ['BOTH', 'R1'] },
      { method: 'b.x', roles: ['BOTH', 'R2'] },
    ]);
    expect(cover.roles).toEqual(['BOTH']);
  });
});
