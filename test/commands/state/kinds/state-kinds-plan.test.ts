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
import { replications } from '../../../../src/commands/state/kinds/replications.js';
import { snapshotTasks } from '../../../../src/commands/state/kinds/snapshot-tasks.js';
import { users } from '../../../../src/commands/state/kinds/users.js';
import {
  Identities,
  parseStateFile,
  stateReplicationSchema,
  stateSnapshotTaskSchema,
} from '../../../../src/core/state/index.js';
import type { RoleOverlap } from '../../../../src/commands/state/plan-model.js';
import {
  apiKey,
  dataset,
  group,
  privilege,
  replication,
  snapshotTask,
  user,
  world,
} from '../../../helpers/state-world.js';

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

describe('snapshot tasks plan', () => {
  const hourly = snapshotTask(1, 'tank/a', 'auto-%Y-%m-%d_%H-%M', { lifetime_value: 1, lifetime_unit: 'WEEK' });
  const windowed = snapshotTask(2, 'tank/a', 'day-%Y%m%d-%H%M', {
    recursive: true,
    exclude: ['tank/a/tmp'],
    schedule: { minute: '0', hour: '8-18', dom: '*', month: '*', dow: 'mon-fri', begin: '08:00', end: '18:00' },
  });
  const w = world({ datasets: [dataset('tank/a')], objects: { snapshot_tasks: [hourly, windowed] } });

  it('creates one it lacks, matched by dataset and naming schema together, with the fields the file sets in its terms', () => {
    expect(
      planOne(
        snapshotTasks,
        {
          dataset: 'tank/a',
          naming_schema: 'new-%Y%m%d%H%M',
          lifetime: '30d',
          schedule: '0 */4 * * *',
          enabled: false,
        },
        w,
      ).step?.change,
    ).toEqual({
      kind: 'snapshot_tasks',
      name: 'tank/a@new-%Y%m%d%H%M',
      action: 'create',
      changes: [
        { field: 'lifetime', from: null, to: '30d' },
        { field: 'schedule', from: null, to: '0 */4 * * *' },
        { field: 'enabled', from: null, to: false },
      ],
    });
  });

  it('updates only the fields that differ: a lifetime written either way, a schedule as five fields over the window it has', () => {
    const same = [
      { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M', lifetime: '1w', schedule: '00 * * * *' },
      { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M', lifetime: { value: 1, unit: 'WEEK' as const } },
      { dataset: 'tank/a', naming_schema: 'day-%Y%m%d-%H%M', schedule: '0 8-18 * * mon-fri', exclude: ['tank/a/tmp'] },
      { dataset: 'tank/a', naming_schema: 'day-%Y%m%d-%H%M', schedule: { begin: '8:00', end: '18:00' } },
    ];
    for (const want of same) expect(planOne(snapshotTasks, want, w).step, JSON.stringify(want)).toBeNull();
    expect(
      planOne(
        snapshotTasks,
        { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M', lifetime: '2d', recursive: false },
        w,
      ).step?.change.changes,
    ).toEqual([{ field: 'lifetime', from: '1w', to: '2d' }]);
    expect(
      planOne(snapshotTasks, { dataset: 'tank/a', naming_schema: 'day-%Y%m%d-%H%M', schedule: '0 9 * * *' }, w).step
        ?.change.changes,
    ).toEqual([{ field: 'schedule', from: '0 8-18 * * mon-fri 08:00-18:00', to: '0 9 * * * 08:00-18:00' }]);
  });

  it('exports each task by dataset and schema with its lifetime and schedule (the object where it has a window), and the export plans no change', () => {
    const exported = snapshotTasks.export(w);
    expect(exported).toEqual([
      { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M', lifetime: '1w', schedule: '00 * * * *' },
      {
        dataset: 'tank/a',
        naming_schema: 'day-%Y%m%d-%H%M',
        recursive: true,
        exclude: ['tank/a/tmp'],
        lifetime: '2w',
        schedule: { minute: '0', hour: '8-18', dom: '*', month: '*', dow: 'mon-fri', begin: '08:00', end: '18:00' },
      },
    ]);
    for (const want of exported) expect(planOne(snapshotTasks, stateSnapshotTaskSchema.parse(want), w).step).toBeNull();
  });

  it('--prune deletes only a task stor made (marked with its id), never one made by hand or one the file names', () => {
    const marked = world({
      objects: { snapshot_tasks: [hourly, windowed, snapshotTask(3, 'tank/b')] },
      made: {
        snapshot_task: [
          ['tank/a@auto-%Y-%m-%d_%H-%M', 1],
          ['tank/b@auto-%Y-%m-%d_%H-%M', 99],
        ],
      },
    });
    const none = new Identities({ fields: ['dataset', 'naming_schema'], fold: false });
    expect(snapshotTasks.prune(marked, none, [], () => {})).toEqual(['tank/a@auto-%Y-%m-%d_%H-%M']);
    const named = new Identities({ fields: ['dataset', 'naming_schema'], fold: false }, ['tank/a@auto-%Y-%m-%d_%H-%M']);
    expect(snapshotTasks.prune(marked, named, [], () => {})).toEqual([]);
  });

  it("refuses, in the appliance's words, a task on a dataset neither there nor made by the same run, a naming schema without %Y %m %d %H %M, and a schedule cron does not read", () => {
    const refusal = (want: Parameters<typeof snapshotTasks.plan>[0], made: string[] = []) => {
      const step = planOne(snapshotTasks, want, w).step!;
      const all = [
        step,
        ...made.map((name) => ({
          change: { kind: 'datasets' as const, name, action: 'create' as const, changes: [] },
        })),
      ];
      try {
        snapshotTasks.refuse!(w, [step], false, all);
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ dataset: 'tank/new', naming_schema: 'auto-%Y-%m-%d_%H-%M' })).toContain('Dataset not found');
    expect(refusal({ dataset: 'tank/new', naming_schema: 'auto-%Y-%m-%d_%H-%M' }, ['tank/new'])).toBe('accepted');
    expect(refusal({ dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d' })).toContain(
      '%H must be present in snapshot naming schema',
    );
    expect(refusal({ dataset: 'tank/a', naming_schema: 'x-%Y%m%d%H%M', schedule: '61 * * * *' })).toContain(
      'Please ensure fields match cron syntax',
    );
    expect(refusal({ dataset: 'tank/a', naming_schema: 'x-%Y%m%d%H%M', exclude: ['tank/a/b'] })).toContain(
      'Excluding datasets is not necessary for non-recursive periodic snapshot tasks',
    );
  });

  it("refuses disabling a task an enabled replication binds, in the appliance's words (MW/plugins/snapshot.py:202-211)", () => {
    const bound = world({
      datasets: [dataset('tank/a')],
      objects: { snapshot_tasks: [hourly], replications: [replication(7, 'r', [hourly])] },
    });
    const step = planOne(
      snapshotTasks,
      { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M', enabled: false },
      bound,
    ).step!;
    expect(() => snapshotTasks.refuse!(bound, [step], false, [step])).toThrow(
      "periodic_snapshot_update.enabled: You can't disable this periodic snapshot task because it is bound to enabled replication task 7",
    );
  });

  it('refuses a lifetime of 0 in the file itself (the appliance would take it, and retention then keeps nothing)', () => {
    for (const lifetime of ['0d', '{value: 0, unit: DAY}'])
      expect(() =>
        parseStateFile(
          `stor_state: 1\nsnapshot_tasks:\n  - {dataset: tank/a, naming_schema: "a-%Y%m%d%H%M", lifetime: ${lifetime}}\n`,
          's.yaml',
        ),
      ).toThrow(/snapshot_tasks\[0\]\.lifetime.*a lifetime of 0 keeps no snapshot/);
  });
});

describe('replications plan', () => {
  const hourly = snapshotTask(1, 'tank/a', 'auto-%Y-%m-%d_%H-%M');
  const daily = snapshotTask(2, 'tank/a', 'day-%Y%m%d-%H%M', { recursive: true, exclude: ['tank/a/tmp'] });
  const off = snapshotTask(3, 'tank/b', 'auto-%Y-%m-%d_%H-%M', { enabled: false });
  const backup = replication(1, 'backup', [hourly], {
    schedule: { minute: '0', hour: '*/2', dom: '*', month: '*', dow: '*', begin: '00:00', end: '23:59' },
    retention_policy: 'CUSTOM',
    lifetime_value: 1,
    lifetime_unit: 'MONTH',
  });
  const w = world({
    datasets: [dataset('tank/a'), dataset('tank/b'), dataset('tank/backup')],
    objects: { snapshot_tasks: [hourly, daily, off], replications: [backup] },
  });
  const base = { transport: 'LOCAL' as const, source_datasets: ['tank/a'], target_dataset: 'tank/backup/a' };

  it('creates one it lacks, by name, its snapshot tasks named by DATASET@SCHEMA, with the fields the file sets', () => {
    expect(
      planOne(
        replications,
        {
          name: 'new',
          ...base,
          periodic_snapshot_tasks: ['tank/a@day-%Y%m%d-%H%M'],
          lifetime: '2w',
          retention_policy: 'CUSTOM',
        },
        w,
      ).step?.change,
    ).toEqual({
      kind: 'replications',
      name: 'new',
      action: 'create',
      changes: [
        { field: 'transport', from: null, to: 'LOCAL' },
        { field: 'source_datasets', from: null, to: ['tank/a'] },
        { field: 'target_dataset', from: null, to: 'tank/backup/a' },
        { field: 'periodic_snapshot_tasks', from: null, to: ['tank/a@day-%Y%m%d-%H%M'] },
        { field: 'retention_policy', from: null, to: 'CUSTOM' },
        { field: 'lifetime', from: null, to: '2w' },
      ],
    });
  });

  it('updates only the fields that differ: tasks as a set of identities, a lifetime either way, a schedule over the window it has', () => {
    const same = [
      { name: 'backup', ...base, periodic_snapshot_tasks: ['tank/a@auto-%Y-%m-%d_%H-%M'] },
      { name: 'backup', lifetime: '1m', schedule: '0 */2 * * *', retention_policy: 'CUSTOM' as const },
      { name: 'backup', lifetime: { value: 1, unit: 'MONTH' as const }, direction: 'PUSH' as const, auto: true },
    ];
    for (const want of same) expect(planOne(replications, want, w).step, JSON.stringify(want)).toBeNull();
    expect(
      planOne(
        replications,
        {
          name: 'backup',
          periodic_snapshot_tasks: ['tank/a@auto-%Y-%m-%d_%H-%M', 'tank/a@day-%Y%m%d-%H%M'],
          schedule: null,
        },
        w,
      ).step?.change.changes,
    ).toEqual([
      {
        field: 'periodic_snapshot_tasks',
        from: ['tank/a@auto-%Y-%m-%d_%H-%M'],
        to: ['tank/a@auto-%Y-%m-%d_%H-%M', 'tank/a@day-%Y%m%d-%H%M'],
      },
      { field: 'schedule', from: '0 */2 * * *', to: null },
    ]);
    // Leaving CUSTOM clears the lifetime, which the appliance refuses beside any other policy.
    expect(planOne(replications, { name: 'backup', retention_policy: 'SOURCE' }, w).step?.change.changes).toEqual([
      { field: 'retention_policy', from: 'CUSTOM', to: 'SOURCE' },
    ]);
  });

  it('exports each task with what a create needs and what differs from a fresh one, and the export plans no change', () => {
    const exported = replications.export(w);
    expect(exported).toEqual([
      {
        name: 'backup',
        direction: 'PUSH',
        transport: 'LOCAL',
        source_datasets: ['tank/a'],
        target_dataset: 'tank/backup/a',
        recursive: false,
        periodic_snapshot_tasks: ['tank/a@auto-%Y-%m-%d_%H-%M'],
        auto: true,
        schedule: '0 */2 * * *',
        retention_policy: 'CUSTOM',
        lifetime: '1m',
      },
    ]);
    for (const want of exported) expect(planOne(replications, stateReplicationSchema.parse(want), w).step).toBeNull();
  });

  it('--prune deletes only a replication stor made (marked with its id), never one made by hand or one the file names', () => {
    const marked = world({
      objects: { replications: [backup, replication(2, 'hand'), replication(3, 'reused')] },
      made: {
        replication: [
          ['backup', 1],
          ['reused', 99],
        ],
      },
    });
    const none = new Identities({ fields: ['name'], fold: false });
    expect(replications.prune(marked, none, [], () => {})).toEqual(['backup']);
    expect(
      replications.prune(marked, new Identities({ fields: ['name'], fold: false }, ['backup']), [], () => {}),
    ).toEqual([]);
  });

  it("refuses, in the appliance's words and order, what replication.create would: a task neither there nor made by the run, a disabled task, a push with nothing to send, a lifetime beside another policy", () => {
    const refusal = (want: Parameters<typeof replications.plan>[0], made: string[] = []) => {
      const step = planOne(replications, want, w).step!;
      const all = [
        step,
        ...made.map((name) => ({
          change: { kind: 'snapshot_tasks' as const, name, action: 'create' as const, changes: [] },
          want: { dataset: name.split('@')[0]!, naming_schema: name.split('@')[1]! },
        })),
      ];
      try {
        replications.refuse!(w, [step], false, all);
      } catch (err) {
        return `${(err as Error).message}`;
      }
      return 'accepted';
    };
    const task = (id: string) => ({ name: 'n', ...base, periodic_snapshot_tasks: [id] });
    expect(refusal(task('tank/a@new-%Y%m%d%H%M'))).toContain(
      'replication_create.periodic_snapshot_tasks.0: This snapshot task does not exist',
    );
    expect(refusal(task('tank/a@new-%Y%m%d%H%M'), ['tank/a@new-%Y%m%d%H%M'])).toBe('accepted');
    expect(refusal(task('tank/b@auto-%Y-%m-%d_%H-%M'))).toContain(
      "You can't bind disabled periodic snapshot task to enabled replication task",
    );
    expect(refusal({ name: 'n', ...base })).toContain(
      'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
    );
    expect(refusal({ name: 'n', ...base, also_include_naming_schema: ['x-%Y%m%d%H%M'], lifetime: '2w' })).toContain(
      'replication_create.lifetime_value: This field has no sense for specified retention policy',
    );
    // pydantic says "Field required" here; the contract's check names the enum (params.ts issueTriples, invalid_value).
    expect(refusal({ name: 'n', source_datasets: ['tank/a'], target_dataset: 'tank/x', name_regex: 'a.*' })).toContain(
      'replication_create.transport: ',
    );
    expect(refusal({ name: 'n', ...base, transport: 'SSH', name_regex: 'a.*' })).toContain(
      'SSH Credentials are required for non-local replication',
    );
    expect(refusal({ ...task('tank/a@day-%Y%m%d-%H%M'), recursive: true })).toContain(
      "You should exclude 'tank/a/tmp' as bound periodic snapshot task dataset 'tank/a' does",
    );
    expect(refusal({ ...task('tank/a@day-%Y%m%d-%H%M'), recursive: true, exclude: ['tank/a/tmp'] })).toBe('accepted');
  });
});
