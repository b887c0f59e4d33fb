/**
 * Each kind's plan (src/commands/state/kinds/*.ts): the file's object against the target's, only
 * the fields the file sets, a create when there is none, nothing when all hold; plain data in,
 * steps out (docs/COMMANDS.md "Desired state").
 */
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../../../src/commands/state/kinds/api-keys.js';
import { datasets } from '../../../../src/commands/state/kinds/datasets.js';
import { groups } from '../../../../src/commands/state/kinds/groups.js';
import type { PlanContext, World } from '../../../../src/commands/state/kinds/kind.js';
import { privileges } from '../../../../src/commands/state/kinds/privileges.js';
import { users } from '../../../../src/commands/state/kinds/users.js';
import type { RoleOverlap } from '../../../../src/commands/state/plan-model.js';
import { apiKey, dataset, group, privilege, user, world } from '../../../helpers/state-world.js';

/** Plans one object; the notes and overlaps it adds beside. */
function planOne<W, S>(
  kind: { plan(want: W, w: World, ctx: PlanContext): S | null },
  want: W,
  w: World,
  normalize = false,
) {
  const notes: string[] = [];
  const overlaps: RoleOverlap[] = [];
  const step = kind.plan(want, w, { normalize, note: (n) => notes.push(n), overlap: (o) => overlaps.push(o) });
  return { step, notes, overlaps };
}

describe('groups plan', () => {
  const w = world({ groups: [group(1, 'ops', [2, 1])], users: [user(1, 'alice', 'alice'), user(2, 'bob', 'bob')] });

  it('creates a group it lacks with the gid and the members (sorted) the file sets', () => {
    expect(planOne(groups, { name: 'dev', gid: 5000, members: ['zed', 'amy'] }, w).step).toEqual({
      change: {
        kind: 'groups',
        name: 'dev',
        action: 'create',
        changes: [
          { field: 'gid', from: null, to: 5000 },
          { field: 'members', from: [], to: ['amy', 'zed'] },
        ],
      },
      want: { name: 'dev', gid: 5000, members: ['zed', 'amy'] },
    });
  });

  it('updates the members by name, in any order; a differing gid is a note, never a change', () => {
    expect(planOne(groups, { name: 'ops', members: ['bob', 'alice'] }, w).step).toBeNull();
    expect(planOne(groups, { name: 'ops' }, w).step).toBeNull();
    expect(planOne(groups, { name: 'ops', members: ['alice'] }, w).step?.change.changes).toEqual([
      { field: 'members', from: ['alice', 'bob'], to: ['alice'] },
    ]);
    const gid = planOne(groups, { name: 'ops', gid: 1 }, w);
    expect(gid.step).toBeNull();
    expect(gid.notes).toEqual(['group ops: gid is 3001 on the target, 1 in the file; a gid is never changed in place']);
  });
});

describe('users plan', () => {
  const w = world({
    groups: [group(1, 'ops'), group(2, 'dev')],
    users: [user(1, 'alice', 'alice', [1], { password_disabled: false })],
  });

  it('creates a user without a password, its primary group named like it unless the file names one', () => {
    expect(planOne(users, { name: 'bob' }, w).step?.change).toEqual({
      kind: 'users',
      name: 'bob',
      action: 'create',
      changes: [
        { field: 'full_name', from: null, to: 'bob' },
        { field: 'group', from: null, to: 'bob' },
        { field: 'password_disabled', from: null, to: true },
      ],
    });
    expect(
      planOne(
        users,
        { name: 'bob', group: 'ops', groups: ['dev', 'ops'], shell: '/bin/sh' },
        w,
      ).step?.change.changes.map((c) => `${c.field}=${JSON.stringify(c.to)}`),
    ).toEqual(['full_name="bob"', 'group="ops"', 'groups=["dev","ops"]', 'shell="/bin/sh"', 'password_disabled=true']);
  });

  it('updates only the fields the file sets that differ: auxiliary groups by name, password login turned off', () => {
    expect(
      planOne(users, { name: 'alice', groups: ['ops'], shell: '/usr/bin/zsh', group: 'alice' }, w).step,
    ).toBeNull();
    expect(planOne(users, { name: 'alice', groups: ['dev'], password_disabled: true }, w).step?.change.changes).toEqual(
      [
        { field: 'groups', from: ['ops'], to: ['dev'] },
        { field: 'password_disabled', from: false, to: true },
      ],
    );
  });
});

describe('privileges plan', () => {
  const w = world({ privileges: [privilege(1, 'ops', ['ops'], ['READONLY_ADMIN', 'DATASET_WRITE'])] });

  it('creates one with every field (groups sorted, roles as written, web shell off unless set)', () => {
    expect(
      planOne(privileges, { name: 'new', groups: ['b', 'a'], roles: ['DATASET_WRITE'] }, w).step?.change.changes,
    ).toEqual([
      { field: 'groups', from: [], to: ['a', 'b'] },
      { field: 'roles', from: [], to: ['DATASET_WRITE'] },
      { field: 'web_shell', from: null, to: false },
    ]);
  });

  it('compares roles in the order written (what the appliance stores) and groups as a set', () => {
    expect(
      planOne(privileges, { name: 'ops', groups: ['ops'], roles: ['READONLY_ADMIN', 'DATASET_WRITE'] }, w).step,
    ).toBeNull();
    expect(
      planOne(privileges, { name: 'ops', roles: ['DATASET_WRITE', 'READONLY_ADMIN'] }, w).step?.change.changes,
    ).toEqual([{ field: 'roles', from: ['READONLY_ADMIN', 'DATASET_WRITE'], to: ['DATASET_WRITE', 'READONLY_ADMIN'] }]);
    expect(planOne(privileges, { name: 'ops', web_shell: true }, w).step?.change.changes).toEqual([
      { field: 'web_shell', from: false, to: true },
    ]);
  });

  it('reports a role list with an overlap, and plans the minimal list with --normalize (READONLY_ADMIN includes DATASET_READ, MW/role.py)', () => {
    const want = { name: 'ops', roles: ['READONLY_ADMIN', 'DATASET_READ'] };
    const plain = planOne(privileges, want, w);
    expect(plain.overlaps.map((o) => [o.privilege, o.minimal])).toEqual([['ops', ['READONLY_ADMIN']]]);
    expect(plain.step?.change.changes).toEqual([
      { field: 'roles', from: ['READONLY_ADMIN', 'DATASET_WRITE'], to: ['READONLY_ADMIN', 'DATASET_READ'] },
    ]);
    const normalized = planOne(privileges, want, w, true);
    expect(normalized.step?.change.changes).toEqual([
      { field: 'roles', from: ['READONLY_ADMIN', 'DATASET_WRITE'], to: ['READONLY_ADMIN'] },
    ]);
    expect(normalized.step?.want?.roles).toEqual(['READONLY_ADMIN']);
  });
});

describe('datasets plan', () => {
  const GiB = 1024 ** 3;
  const p = (value: string, parsed: unknown, source = 'LOCAL') => ({
    parsed,
    rawvalue: String(parsed),
    value,
    source,
    source_info: null,
  });
  const w = world({
    datasets: [
      { ...dataset('tank/a'), quota: p('10 GiB', 10 * GiB), compression: p('LZ4', 'lz4') } as unknown as ReturnType<
        typeof dataset
      >,
    ],
  });

  it('creates one it lacks with every field the file sets, sizes as written', () => {
    expect(
      planOne(datasets, { name: 'tank/b', comments: 'b', properties: { quota: '20G', 'org.example:owner': 'ops' } }, w)
        .step?.change,
    ).toEqual({
      kind: 'datasets',
      name: 'tank/b',
      action: 'create',
      changes: [
        { field: 'comments', from: null, to: 'b' },
        { field: 'quota', from: null, to: '20G' },
        { field: 'org.example:owner', from: null, to: 'ops' },
      ],
    });
    // A dataset the target lacks is a create even when the file sets nothing.
    expect(planOne(datasets, { name: 'tank/c' }, w).step?.change.action).toBe('create');
  });

  it('updates only the properties that differ, compared as the appliance stores them', () => {
    expect(
      planOne(datasets, { name: 'tank/a', properties: { quota: 10 * GiB, compression: 'lz4' } }, w).step,
    ).toBeNull();
    expect(
      planOne(datasets, { name: 'tank/a', properties: { quota: '20G', compression: 'LZ4' } }, w).step?.change.changes,
    ).toEqual([{ field: 'quota', from: '10G', to: '20G' }]);
  });
});

describe('API keys plan', () => {
  const w = world({
    api_keys: [apiKey(1, 'ci', 'alice', Date.UTC(2030, 0, 1)), apiKey(2, 'twice', 'alice'), apiKey(3, 'twice', 'bob')],
  });

  it('creates one it lacks with its user and expiry, in whole seconds as the appliance keeps it (MW/plugins/api_key.py:142)', () => {
    expect(
      planOne(apiKeys, { name: 'new', user: 'bob', expires: '2031-01-01T00:00:00.567Z' }, w).step?.change.changes,
    ).toEqual([
      { field: 'user', from: null, to: 'bob' },
      { field: 'expires', from: null, to: '2031-01-01T00:00:00.000Z' },
    ]);
  });

  it('updates only the expiry; another user, or a name two keys share, is a note and no change', () => {
    expect(planOne(apiKeys, { name: 'ci', user: 'alice', expires: '2030-01-01T00:00:00.900Z' }, w).step).toBeNull();
    expect(planOne(apiKeys, { name: 'ci', user: 'alice', expires: null }, w).step?.change.changes).toEqual([
      { field: 'expires', from: '2030-01-01T00:00:00.000Z', to: null },
    ]);
    const other = planOne(apiKeys, { name: 'ci', user: 'bob' }, w);
    expect(other.step).toBeNull();
    expect(other.notes).toEqual([
      "api key ci: belongs to alice on the target, bob in the file; a key's user is never changed",
    ]);
    const twice = planOne(apiKeys, { name: 'twice', user: 'alice', expires: null }, w);
    expect(twice.step).toBeNull();
    expect(twice.notes).toEqual(['api key twice: 2 keys have this name (ids 2, 3); left as they are']);
  });
});
