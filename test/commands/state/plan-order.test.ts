/**
 * The desired-state driver walks the table of kinds (src/commands/state/kinds/index.ts): creates and
 * updates in its order, `--prune`'s deletes in reverse, `stor export --only` by its sections, each
 * kind's refusals before any step runs (docs/STATE.md). Plain data: the adapters plan on a world
 * read before, so no server is needed.
 */
import { describe, expect, it } from 'vitest';
import { checkKinds } from '../../../src/commands/state/checks.js';
import { computePlan } from '../../../src/commands/state/diff.js';
import { exportState } from '../../../src/commands/state/export-state.js';
import { sectionsNamed } from '../../../src/commands/state/export.js';
import { groups } from '../../../src/commands/state/kinds/groups.js';
import { KINDS, STATE_KINDS } from '../../../src/commands/state/kinds/index.js';
import { users } from '../../../src/commands/state/kinds/users.js';
import { RpcError, StorError } from '../../../src/core/errors.js';
import { partOf, STATE_SECTIONS, type StateFile } from '../../../src/core/state/index.js';
import {
  apiKey,
  dataset,
  group,
  nfsShare,
  privilege,
  replication,
  smbShare,
  snapshotTask,
  user,
  world,
} from '../../helpers/state-world.js';

const plan = (w: ReturnType<typeof world>, file: StateFile, prune = false) =>
  computePlan(w, file, { prune, normalize: false });
const order = (file: StateFile, w = world(), prune = false) =>
  plan(w, file, prune).plan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`);

describe('desired state: the table of kinds', () => {
  it("has one row per section of the file, in dependency order, each holding its section's schema", () => {
    expect(STATE_KINDS).toEqual([
      'groups',
      'users',
      'privileges',
      'datasets',
      'snapshot_tasks',
      'replications',
      'shares.nfs',
      'shares.smb',
      'api_keys',
    ]);
    expect([...STATE_KINDS].sort()).toEqual([...STATE_SECTIONS].sort());
    // Each row's schema is its section's part, wherever the section sits (a place inside `shares` too).
    for (const kind of KINDS) expect(kind.schema).toBe(partOf(kind.key).element);
  });

  it("plans creates and updates kind by kind in the table's order, whatever order the file lists them in; within a kind, in the file's", () => {
    const file = {
      api_keys: [{ name: 'ci', user: 'alice' }],
      datasets: [{ name: 'tank/b' }, { name: 'tank/a' }],
      privileges: [{ name: 'ops', groups: ['ops'], roles: ['READONLY_ADMIN'] }],
      users: [{ name: 'alice', group: 'ops' }],
      groups: [{ name: 'ops' }, { name: 'dev' }],
      stor_state: 1,
    } as const satisfies StateFile;
    expect(order(file as StateFile)).toEqual([
      'create groups ops',
      'create groups dev',
      'create users alice',
      'create privileges ops',
      'create datasets tank/b',
      'create datasets tank/a',
      'create api_keys ci',
    ]);
    // Updates keep the same order: a user renamed into a group the same run changes.
    const w = world({ groups: [group(1, 'ops')], users: [user(1, 'alice', 'alice')] });
    expect(
      order(
        {
          stor_state: 1,
          users: [{ name: 'alice', full_name: 'Alice' }],
          groups: [{ name: 'ops', members: ['alice'] }],
        },
        w,
      ),
    ).toEqual(['update groups ops', 'update users alice']);
  });

  it("creates datasets parent before child (by depth), whatever order the file lists them in; at one depth, in the file's", () => {
    // pool.dataset.create makes no parent (create_ancestors false, MW/api/v25_10_1/pool_dataset.py):
    // a child made first is refused "Parent dataset (tank/p) does not exist."
    const w = world({ datasets: [dataset('tank/p'), dataset('tank/q')] });
    expect(
      order(
        {
          stor_state: 1,
          datasets: [{ name: 'tank/p/c/d' }, { name: 'tank/z/c' }, { name: 'tank/z' }, { name: 'tank/p/c' }],
        },
        w,
      ),
    ).toEqual([
      'create datasets tank/z',
      'create datasets tank/z/c',
      'create datasets tank/p/c',
      'create datasets tank/p/c/d',
    ]);
  });

  it('--prune deletes in reverse table order (keys, datasets children first, privileges, users, groups), only what stor made, and keeps a group still in use', () => {
    const w = world({
      groups: [group(1, 'ops'), group(2, 'alice', [1]), group(3, 'kept', [2]), group(4, 'privg'), group(5, 'hand')],
      users: [user(1, 'alice', 'alice'), user(2, 'bob', 'kept')],
      privileges: [
        privilege(1, 'ops', ['ops'], ['READONLY_ADMIN']),
        privilege(2, 'handp', ['privg'], ['READONLY_ADMIN']),
      ],
      api_keys: [apiKey(1, 'ci', 'alice'), apiKey(2, 'hand', 'bob')],
      datasets: [dataset('tank/a', true), dataset('tank/a/b', true), dataset('tank/hand')],
      // bob and handp were made by hand: their groups stay with them.
      made: { group: ['ops', 'alice', 'kept', 'privg'], user: ['alice'], privilege: ['ops'], api_key: ['ci'] },
    });
    expect(order({ stor_state: 1 }, w, true)).toEqual([
      'delete api_keys ci',
      'delete datasets tank/a/b',
      'delete datasets tank/a',
      'delete privileges ops',
      'delete users alice',
      'delete groups ops',
      'delete groups alice',
    ]);
    // What the file names stays; a group whose user stays stays too.
    expect(order({ stor_state: 1, users: [{ name: 'alice' }], groups: [{ name: 'ops' }] }, w, true)).toEqual([
      'delete api_keys ci',
      'delete datasets tank/a/b',
      'delete datasets tank/a',
      'delete privileges ops',
    ]);
    // Without --prune nothing is deleted.
    expect(order({ stor_state: 1 }, w)).toEqual([]);
  });

  it('--prune keeps a dataset stor made while a dataset under it stays (the file names it, or stor did not make it), and says so', () => {
    // pool.dataset.delete is not recursive (state/datasets.ts deleteDataset): 25.10.1 answers
    // "[ENOTEMPTY] … cannot destroy 'tank/proj': filesystem has children".
    const w = world({
      datasets: [
        dataset('tank/proj', true),
        dataset('tank/proj/web', true),
        dataset('tank/x', true),
        dataset('tank/x/y', true),
        dataset('tank/x/y/hand'),
        dataset('tank/gone', true),
        dataset('tank/gone/child', true),
        dataset('tank/projects', true),
      ],
    });
    const p = plan(w, { stor_state: 1, datasets: [{ name: 'tank/proj/web' }] }, true).plan;
    expect(p.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete datasets tank/projects',
      'delete datasets tank/gone/child',
      'delete datasets tank/gone',
    ]);
    expect(p.notes).toEqual([
      'dataset tank/x/y: stor made it, but tank/x/y/hand under it stays; --prune leaves it',
      'dataset tank/x: stor made it, but tank/x/y under it stays; --prune leaves it',
      'dataset tank/proj: stor made it, but tank/proj/web under it stays; --prune leaves it',
    ]);
  });

  it('makes a snapshot task after the dataset it snapshots and deletes it before; --prune keeps a dataset stor made while a task on it stays, as deleting the dataset would take the task', () => {
    const file: StateFile = {
      stor_state: 1,
      snapshot_tasks: [{ dataset: 'tank/web', naming_schema: 'auto-%Y-%m-%d_%H-%M' }],
      datasets: [{ name: 'tank/web' }],
      shares: { nfs: [{ path: '/mnt/tank/web' }] },
    };
    expect(order(file)).toEqual([
      'create datasets tank/web',
      'create snapshot_tasks tank/web@auto-%Y-%m-%d_%H-%M',
      'create shares.nfs /mnt/tank/web',
    ]);
    const w = world({
      datasets: [dataset('tank/old', true), dataset('tank/kept', true)],
      objects: { snapshot_tasks: [snapshotTask(4, 'tank/old'), snapshotTask(5, 'tank/kept/sub', 'hand-%Y%m%d%H%M')] },
      made: { snapshot_task: [['tank/old@auto-%Y-%m-%d_%H-%M', 4]] },
    });
    const pruned = plan(w, { stor_state: 1 }, true).plan;
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete snapshot_tasks tank/old@auto-%Y-%m-%d_%H-%M',
      'delete datasets tank/old',
    ]);
    expect(pruned.notes).toEqual([
      'dataset tank/kept: stor made it, but snapshot task tank/kept/sub@hand-%Y%m%d%H%M in it stays; --prune leaves it',
    ]);
    expect(plan(w, exportState(w)).plan.pending).toBe(false);
  });

  it('makes a replication after the snapshot tasks it binds and deletes it before them; --prune keeps a task a staying replication binds', () => {
    const file: StateFile = {
      stor_state: 1,
      replications: [
        {
          name: 'backup',
          transport: 'LOCAL',
          source_datasets: ['tank/web'],
          target_dataset: 'tank/copy',
          periodic_snapshot_tasks: ['tank/web@auto-%Y-%m-%d_%H-%M'],
        },
      ],
      snapshot_tasks: [{ dataset: 'tank/web', naming_schema: 'auto-%Y-%m-%d_%H-%M' }],
      datasets: [{ name: 'tank/web' }],
    };
    expect(order(file)).toEqual([
      'create datasets tank/web',
      'create snapshot_tasks tank/web@auto-%Y-%m-%d_%H-%M',
      'create replications backup',
    ]);
    // The appliance refuses deleting the last task bound to an enabled replication (MW/plugins/snapshot.py:269-280):
    // the replication goes first.
    const old = snapshotTask(4, 'tank/old');
    const bound = snapshotTask(5, 'tank/old', 'bound-%Y%m%d%H%M');
    const w = world({
      datasets: [dataset('tank/old')],
      objects: {
        snapshot_tasks: [old, bound],
        replications: [replication(7, 'gone', [old]), replication(8, 'hand', [bound])],
      },
      made: {
        snapshot_task: [
          ['tank/old@auto-%Y-%m-%d_%H-%M', 4],
          ['tank/old@bound-%Y%m%d%H%M', 5],
        ],
        replication: [['gone', 7]],
      },
    });
    const pruned = plan(w, { stor_state: 1 }, true).plan;
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete replications gone',
      'delete snapshot_tasks tank/old@auto-%Y-%m-%d_%H-%M',
    ]);
    expect(pruned.notes).toEqual([
      'snapshot task tank/old@bound-%Y%m%d%H%M: stor made it, but replication hand, which sends its snapshots, stays; --prune leaves it',
    ]);
    expect(plan(w, exportState(w)).plan.pending).toBe(false);
  });

  it('--prune keeps a dataset stor made while a replication that stays sends from it or, LOCAL, receives into it, as deleting the dataset would take the replication', () => {
    // pool.dataset.delete deletes the replications attached (MW/plugins/replication.py:648-678).
    const w = world({
      datasets: [dataset('tank/src', true), dataset('tank/dst', true), dataset('tank/free', true)],
      objects: {
        replications: [replication(1, 'hand', [], { source_datasets: ['tank/src/a'], target_dataset: 'tank/dst/a' })],
      },
    });
    const pruned = plan(w, { stor_state: 1 }, true).plan;
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete datasets tank/free']);
    expect(pruned.notes).toEqual([
      'dataset tank/dst: stor made it, but replication hand in it stays; --prune leaves it',
      'dataset tank/src: stor made it, but replication hand in it stays; --prune leaves it',
    ]);
  });

  it('makes an NFS share after the dataset holding its path and deletes it before; export --only shares writes it at shares.nfs', () => {
    const file: StateFile = {
      stor_state: 1,
      shares: { nfs: [{ path: '/mnt/tank/web', ro: true }] },
      datasets: [{ name: 'tank/web' }],
      api_keys: [{ name: 'k', user: 'u' }],
    };
    expect(order(file)).toEqual(['create datasets tank/web', 'create shares.nfs /mnt/tank/web', 'create api_keys k']);
    const nfs = nfsShare(5, '/mnt/tank/old', { ro: true });
    const w = world({
      datasets: [dataset('tank/old', true)],
      objects: { 'shares.nfs': [nfs] },
      made: { nfs_share: [['/mnt/tank/old', 5]] },
    });
    expect(order({ stor_state: 1 }, w, true)).toEqual(['delete shares.nfs /mnt/tank/old', 'delete datasets tank/old']);
    expect(exportState(w, new Set(sectionsNamed('shares')))).toMatchObject({
      stor_state: 1,
      shares: { nfs: [{ path: '/mnt/tank/old', ro: true }] },
    });
    expect(sectionsNamed('shares.nfs')).toEqual(['shares.nfs']);
    expect(plan(w, exportState(w)).plan.pending).toBe(false);
  });

  it('makes SMB shares after NFS shares and deletes them before; export --only shares writes both', () => {
    const file: StateFile = {
      stor_state: 1,
      shares: { smb: [{ name: 'web', path: '/mnt/tank/web' }], nfs: [{ path: '/mnt/tank/web' }] },
      datasets: [{ name: 'tank/web' }],
    };
    expect(order(file)).toEqual([
      'create datasets tank/web',
      'create shares.nfs /mnt/tank/web',
      'create shares.smb web',
    ]);
    const smb = smbShare(7, 'Old', '/mnt/tank/old');
    const w = world({
      datasets: [dataset('tank/old', true)],
      objects: { 'shares.smb': [smb] },
      made: { smb_share: [['Old', 7]] },
    });
    expect(order({ stor_state: 1 }, w, true)).toEqual(['delete shares.smb Old', 'delete datasets tank/old']);
    // Named in another case: the same share, kept (and with it the dataset holding it).
    expect(order({ stor_state: 1, shares: { smb: [{ name: 'old', path: '/mnt/tank/old' }] } }, w, true)).toEqual([]);
    expect(exportState(w, new Set(sectionsNamed('shares')))).toEqual({
      stor_state: 1,
      shares: { nfs: [], smb: [{ name: 'Old', path: '/mnt/tank/old' }] },
    });
  });

  it('--prune keeps a dataset stor made while a share in it stays (made by hand, or named by the file), and says so', () => {
    // 25.10.1's pool.dataset.delete takes the shares under it with it (its attachment delegates).
    const w = world({
      datasets: [dataset('tank/a', true), dataset('tank/a/b', true), dataset('tank/c', true)],
      objects: {
        'shares.nfs': [nfsShare(1, '/mnt/tank/a/b/dir'), nfsShare(2, '/mnt/tank/c')],
        'shares.smb': [smbShare(3, 'mine', '/mnt/tank/c')],
      },
      made: { nfs_share: [['/mnt/tank/c', 2]], smb_share: [['mine', 3]] },
    });
    const p = plan(w, { stor_state: 1 }, true).plan;
    expect(p.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete shares.smb mine',
      'delete shares.nfs /mnt/tank/c',
      'delete datasets tank/c',
    ]);
    expect(p.notes).toEqual([
      'dataset tank/a/b: stor made it, but nfs share /mnt/tank/a/b/dir in it stays; --prune leaves it',
      'dataset tank/a: stor made it, but tank/a/b under it stays; --prune leaves it',
    ]);
    // The file names stor's SMB share: its dataset stays.
    expect(
      plan(w, { stor_state: 1, shares: { smb: [{ name: 'MINE', path: '/mnt/tank/c' }] } }, true).plan.changes.map(
        (c) => `${c.action} ${c.kind} ${c.name}`,
      ),
    ).toEqual(['delete shares.nfs /mnt/tank/c']);
  });

  it('creates first, then deletes, in one plan', () => {
    const w = world({ groups: [group(1, 'old')], made: { group: ['old'] } });
    expect(order({ stor_state: 1, api_keys: [{ name: 'k', user: 'u' }], groups: [{ name: 'new' }] }, w, true)).toEqual([
      'create groups new',
      'create api_keys k',
      'delete groups old',
    ]);
  });

  it("export --only writes the sections asked, in the table's order; all of them by default; and the export plans no change", () => {
    const w = world({
      groups: [group(1, 'ops', [1])],
      users: [user(1, 'alice', 'ops', [1])],
      privileges: [privilege(1, 'ops', ['ops'], ['READONLY_ADMIN'])],
      api_keys: [apiKey(1, 'ci', 'alice', Date.UTC(2030, 0, 1))],
      datasets: [dataset('tank/ops')],
    });
    expect(Object.keys(exportState(w, new Set(['privileges', 'groups'])))).toEqual([
      'stor_state',
      'groups',
      'privileges',
    ]);
    expect(Object.keys(exportState(w, new Set(['api_keys'])))).toEqual(['stor_state', 'api_keys']);
    const all = exportState(w);
    expect(Object.keys(all)).toEqual([
      'stor_state',
      'groups',
      'users',
      'privileges',
      'datasets',
      'snapshot_tasks',
      'replications',
      'shares',
      'api_keys',
    ]);
    expect(all.api_keys).toEqual([{ name: 'ci', user: 'alice', expires: '2030-01-01T00:00:00.000Z' }]);
    expect(plan(w, all).plan.pending).toBe(false);
  });

  it("refuses before any step: each kind's refusals in table order (roles the target lacks, then a locking list unless --force, then a dataset change the target would refuse)", () => {
    const w = world({ datasets: [dataset('tank/a')] });
    const file = (roles: string[], copies: number): StateFile => ({
      stor_state: 1,
      groups: [{ name: 'ops' }],
      privileges: [{ name: 'ops', groups: ['ops'], roles }],
      datasets: [{ name: 'tank/b', properties: { copies } }],
    });
    const refusal = (f: StateFile, force: boolean) => {
      try {
        checkKinds(w, plan(w, f).steps, force);
      } catch (err) {
        return err instanceof StorError ? err.code : err instanceof RpcError ? `rpc: ${err.message}` : String(err);
      }
      return 'none';
    };
    expect(refusal(file(['NO_SUCH_ROLE', 'PRIVILEGE_WRITE'], 9), true)).toBe('UNKNOWN_ROLE');
    // 25.10.1's PRIVILEGE_WRITE includes itself (MW/role.py:62): a list holding it locks its users out.
    expect(refusal(file(['PRIVILEGE_WRITE'], 9), false)).toBe('ROLE_LIST_LOCKS_OUT');
    expect(refusal(file(['PRIVILEGE_WRITE'], 9), true)).toContain(
      "cannot create 'tank/b': 'copies' must be one of '1 | 2 | 3'",
    );
    expect(refusal(file(['PRIVILEGE_WRITE'], 2), true)).toBe('none');
    expect(refusal(file(['READONLY_ADMIN'], 2), false)).toBe('none');
  });

  it("makes a user the file's groups list as a member with those groups (less its primary), so one run converges, and the plan shows it", () => {
    // The groups step cannot add a user the users step has yet to make; user.create takes `groups`
    // (UserCreate inherits UserEntry.groups, MW/api/v25_10_1/user.py:83), so the user's create carries them.
    const w = world({ groups: [group(1, 'ops')] });
    const { plan: p, steps } = plan(w, {
      stor_state: 1,
      groups: [
        { name: 'g2', members: ['carol', 'dan'] },
        { name: 'carol', members: ['carol'] },
        { name: 'dev', members: ['dan'] },
      ],
      users: [{ name: 'carol' }, { name: 'dan', groups: ['ops', 'dev'] }, { name: 'erin' }],
    });
    const groupsField = (name: string) =>
      p.changes.find((c) => c.kind === 'users' && c.name === name)?.changes.find((f) => f.field === 'groups');
    expect(groupsField('carol')).toEqual({ field: 'groups', from: [], to: ['g2'] });
    expect(groupsField('dan')).toEqual({ field: 'groups', from: [], to: ['dev', 'g2', 'ops'] });
    expect(groupsField('erin')).toBeUndefined();
    // Verified as planned: the user's read after its create, planned again on its step, shows no change.
    const carol = steps.find((s) => s.change.kind === 'users' && s.change.name === 'carol')!;
    const seen = world({ groups: [group(1, 'g2', [1]), group(2, 'carol')], users: [user(1, 'carol', 'carol', [1])] });
    expect(
      users.plan(carol.want as { name: string }, seen, { normalize: false, note: () => {}, overlap: () => {} }),
    ).toBeNull();
  });

  it('verifies a group without the members a later step of the run makes, but with every other', () => {
    const steps = plan(world(), {
      stor_state: 1,
      groups: [{ name: 'ops', members: ['alice', 'carol'] }],
      users: [{ name: 'carol' }],
    }).steps;
    const seen = world({ groups: [group(1, 'ops', [1])], users: [user(1, 'alice', 'alice')] });
    expect(groups.expected!({ name: 'ops', members: ['alice', 'carol'] }, seen, steps)).toEqual({
      name: 'ops',
      members: ['alice'],
    });
    expect(groups.expected!({ name: 'ops', members: ['alice', 'dave'] }, seen, steps)).toEqual({
      name: 'ops',
      members: ['alice', 'dave'],
    });
  });
});
