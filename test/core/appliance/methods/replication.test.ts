/**
 * replication.* of the embedded appliance, as 25.10.1 and 26.0 answer them, driven in-process
 * through the real dispatcher (every answer checked against the release's contract). The sources
 * followed (MW = src/middlewared/middlewared at TS-25.10.1; stable/26 where it says so):
 * - the models: MW/api/v25_10_1/replication.py, replication_config.py; stable/26 MW/api/v26_0_0/replication.py;
 * - ReplicationService: MW/plugins/replication.py:114-628 (`_validate` :344-549; stable/26 :350-675);
 * - zettarepl's side: MW/plugins/zettarepl.py:502-591; the links: MW/plugins/snapshot.py:202-211, 269-280,
 *   MW/plugins/replication.py:96-101, 648-678; events: MW/service/crud_service.py:204-216.
 */
import { describe, expect, it } from 'vitest';
import type { CollectionUpdate } from '../../../../src/core/appliance/events.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { OTHER_PUBLIC } from '../../../helpers/ssh-key-fixtures.js';

type Entry = Record<string, unknown>;
type Triple = [string | null, string, number];

const EINVAL = 22;

/** An appliance of `release` with tank/src, tank/src/a, tank/src/b and tank/dst, jobs answered by their results. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  for (const name of ['tank/src', 'tank/src/a', 'tank/src/b', 'tank/dst'])
    await t.call(t.admin, 'pool.dataset.create', { name });
  await t.call(t.admin, 'core.set_options', { legacy_jobs: false });
  return t;
}

const snapshotTask = (t: TestAppliance, data: Entry = {}) =>
  t.call<Entry>(t.admin, 'pool.snapshottask.create', { dataset: 'tank/src', recursive: true, ...data });

/** A LOCAL PUSH task bound to snapshot task 1, not automatic. */
const PUSH: Entry = {
  name: 'push',
  direction: 'PUSH',
  transport: 'LOCAL',
  source_datasets: ['tank/src'],
  target_dataset: 'tank/dst',
  recursive: true,
  auto: false,
  retention_policy: 'SOURCE',
  periodic_snapshot_tasks: [1],
};

const create = (t: TestAppliance, data: Entry) => t.call<Entry>(t.admin, 'replication.create', data);

function triplesOf(err: RpcError): Triple[] {
  expect(err.code).toBe(-32602);
  return err.data!.extra as Triple[];
}

const refused = async (t: TestAppliance, data: Entry, schema = 'replication_create') =>
  triplesOf(await t.callError(t.admin, 'replication.create', data)).map(
    ([a, m, e]) => [a?.replace(`${schema}.`, ''), m, e] as const,
  );

/**
 * ReplicationEntry's fields, in its order, `id` first (MW/api/v25_10_1/replication.py:40-176 at
 * TS-25.10.1): the answer is dumped through the result model (MW/api/base/handler/result.py:13-17),
 * not in the row's order.
 */
const ENTRY_FIELDS = [
  'id',
  'name',
  'direction',
  'transport',
  'ssh_credentials',
  'netcat_active_side',
  'netcat_active_side_listen_address',
  'netcat_active_side_port_min',
  'netcat_active_side_port_max',
  'netcat_passive_side_connect_address',
  'sudo',
  'source_datasets',
  'target_dataset',
  'recursive',
  'exclude',
  'properties',
  'properties_exclude',
  'properties_override',
  'replicate',
  'encryption',
  'encryption_inherit',
  'encryption_key',
  'encryption_key_format',
  'encryption_key_location',
  'periodic_snapshot_tasks',
  'naming_schema',
  'also_include_naming_schema',
  'name_regex',
  'auto',
  'schedule',
  'restrict_schedule',
  'only_matching_schedule',
  'allow_from_scratch',
  'readonly',
  'hold_pending_snapshots',
  'retention_policy',
  'lifetime_value',
  'lifetime_unit',
  'lifetimes',
  'compression',
  'speed_limit',
  'large_block',
  'embed',
  'compressed',
  'retries',
  'logging_level',
  'enabled',
  'state',
  'job',
  'has_encrypted_dataset_keys',
];

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`replication on ${release}`, () => {
    it('create fills ReplicationCreate’s defaults and answers the entry in its order, state PENDING, the bound task as its row reads (replication.py:138-176)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      const entry = await create(t, { ...PUSH, also_include_naming_schema: ['manual-%Y-%m-%d_%H-%M'] });
      expect(Object.keys(entry)).toEqual(ENTRY_FIELDS);
      expect(entry).toMatchObject({
        id: 1,
        ssh_credentials: null,
        sudo: false,
        exclude: [],
        properties: true,
        properties_override: {},
        naming_schema: [],
        also_include_naming_schema: ['manual-%Y-%m-%d_%H-%M'],
        schedule: null,
        readonly: 'SET',
        lifetime_value: null,
        compression: null,
        large_block: true,
        retries: 5,
        enabled: true,
        state: { state: 'PENDING' },
        job: null,
        has_encrypted_dataset_keys: false,
      });
      const [bound] = entry.periodic_snapshot_tasks as Entry[];
      // PoolSnapshotTaskDBEntry: 25.10.1's id and state after the task's fields, 26.0's id first;
      // `state` the never-written task_state column (MW/plugins/snapshot.py:37).
      const fields = [
        'dataset',
        'recursive',
        'lifetime_value',
        'lifetime_unit',
        'enabled',
        'exclude',
        'naming_schema',
        'allow_empty',
        'schedule',
      ];
      expect(Object.keys(bound!)).toEqual(release === '26.0' ? ['id', ...fields, 'state'] : [...fields, 'id', 'state']);
      expect(bound).toMatchObject({ id: 1, dataset: 'tank/src', state: '{}' });
      expect(await t.call(t.admin, 'replication.get_instance', 1)).toEqual(entry);
      expect(await t.call(t.admin, 'replication.query', [['name', '=', 'push']], { select: ['id'] })).toEqual([
        { id: 1 },
      ]);
    });

    it('sends collection_update ADDED, CHANGED and REMOVED on replication.query (MW/service/crud_service.py:204-216)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'replication.query');
      const created = await create(t, PUSH);
      const updated = await t.call<Entry>(t.admin, 'replication.update', 1, { name: 'renamed' });
      expect(await t.call(t.admin, 'replication.delete', 1)).toBe(true);
      expect(heard.map((h) => [h.msg, h.id])).toEqual([
        ['added', 1],
        ['changed', 1],
        ['removed', 1],
      ]);
      expect(heard[0]!.fields).toEqual(created);
      expect(heard[1]!.fields).toMatchObject({ name: 'renamed', id: updated.id });
    });

    it('a session holding REPLICATION_TASK_READ may subscribe to replication.query (MW/service/crud_service.py:113-133, role_prefix at replication.py:123)', async () => {
      const t = await setup(release);
      const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['REPLICATION_TASK_READ'] });
      const { session } = await t.login(key);
      session.notify = () => undefined;
      await expect(t.call(session, 'core.subscribe', 'replication.query')).resolves.toEqual(expect.any(String));
    });

    it('refuses a second task of the same name (MW/service/crud_service.py:261-272, replication.py:347)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, PUSH);
      expect(await refused(t, PUSH)).toEqual([['name', 'Object with this name already exists', EINVAL]]);
    });

    it('PUSH: an unknown snapshot task, a naming_schema, no task nor schema nor regex, automatic without schedule (replication.py:353-369)', async () => {
      const t = await setup(release);
      expect(
        await refused(t, { ...PUSH, periodic_snapshot_tasks: [7], naming_schema: ['auto-%Y-%m-%d_%H-%M'], auto: true }),
      ).toEqual([
        ['periodic_snapshot_tasks.0', 'This snapshot task does not exist', EINVAL],
        ['naming_schema', 'This field has no sense for push replication', EINVAL],
        [
          'periodic_snapshot_tasks',
          'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
          EINVAL,
        ],
      ]);
      expect(await refused(t, { ...PUSH, periodic_snapshot_tasks: [], name_regex: 'x', auto: true })).toEqual([
        [
          'auto',
          'Push replication that runs automatically must be either bound to a periodic snapshot task or have a schedule',
          EINVAL,
        ],
      ]);
    });

    it('PULL: automatic without schedule, bound to a task, no schema nor regex, also_include, holding snapshots (replication.py:371-386)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      expect(
        await refused(t, {
          ...PUSH,
          direction: 'PULL',
          auto: true,
          also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
          hold_pending_snapshots: true,
        }),
      ).toEqual([
        ['auto', 'Pull replication that runs automatically must have a schedule', EINVAL],
        ['periodic_snapshot_tasks', "Pull replication can't be bound to a periodic snapshot task", EINVAL],
        ['naming_schema', 'Naming schema or Name regex are required for pull replication', EINVAL],
        ['also_include_naming_schema', 'This field has no sense for pull replication', EINVAL],
        [
          'hold_pending_snapshots',
          "Pull replication tasks can't hold pending snapshots because they don't do source retention",
          EINVAL,
        ],
      ]);
    });

    it('PULL needs REPLICATION_TASK_WRITE_PULL of a caller holding REPLICATION_TASK_WRITE (replication.py:388-390)', async () => {
      const t = await setup(release);
      const { key } = await createUserWithKey(t, 'repl', { privilegeRoles: ['REPLICATION_TASK_WRITE'] });
      const { session } = await t.login(key);
      const pull = { ...PUSH, direction: 'PULL', periodic_snapshot_tasks: [], naming_schema: ['auto-%Y-%m-%d_%H-%M'] };
      expect(triplesOf(await t.callError(session, 'replication.create', pull))).toEqual([
        ['replication_create.direction', "You don't have permissions to use PULL replication", EINVAL],
      ]);
      // FULL_ADMIN's roles hold neither, so the check does not apply (MW/auth.py:126-127).
      expect(await create(t, pull)).toMatchObject({ direction: 'PULL', naming_schema: ['auto-%Y-%m-%d_%H-%M'] });
    });

    it('transport: SSH needs credentials and an unknown id is refused; LOCAL refuses credentials, compression, speed limit and netcat fields (replication.py:394-434)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      expect(await refused(t, { ...PUSH, transport: 'SSH' })).toEqual([
        ['ssh_credentials', 'SSH Credentials are required for non-local replication', EINVAL],
      ]);
      expect(await refused(t, { ...PUSH, transport: 'SSH', ssh_credentials: 3 })).toEqual([
        ['ssh_credentials', '[ENOENT] Credential does not exist', EINVAL],
      ]);
      expect(
        await refused(t, {
          ...PUSH,
          ssh_credentials: 3,
          compression: 'LZ4',
          speed_limit: 100,
          netcat_active_side: 'LOCAL',
          netcat_active_side_port_min: 1000,
        }),
      ).toEqual([
        ['netcat_active_side', 'This field only has sense for SSH+netcat replication', EINVAL],
        ['netcat_active_side_port_min', 'This field only has sense for SSH+netcat replication', EINVAL],
        ['ssh_credentials', 'Remote credentials have no sense for local replication', EINVAL],
        ['compression', 'Compression has no sense for local replication', EINVAL],
        ['speed_limit', 'Speed limit has no sense for local replication', EINVAL],
      ]);
      expect(
        await refused(t, {
          ...PUSH,
          transport: 'SSH+NETCAT',
          netcat_active_side_port_min: 2000,
          netcat_active_side_port_max: 1000,
          compression: 'LZ4',
        }),
      ).toEqual([
        ['netcat_active_side', 'You must choose active side for SSH+netcat replication', EINVAL],
        [
          'netcat_active_side_port_max',
          'Please specify value greater than or equal to netcat_active_side_port_min',
          EINVAL,
        ],
        ['compression', 'Compression is not supported for SSH+netcat replication', EINVAL],
        ['ssh_credentials', 'SSH Credentials are required for non-local replication', EINVAL],
      ]);
    });

    it('SSH credentials are looked up as keychaincredential.get_of_type(id, "SSH_CREDENTIALS") answers: a key pair is refused with EINVAL; SSH credentials are joined into the entry and kept by an update (replication.py:427-432, keychain.py:446-458)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await t.call(t.admin, 'keychaincredential.create', {
        name: 'k',
        type: 'SSH_KEY_PAIR',
        attributes: { public_key: OTHER_PUBLIC },
      });
      const credential = await t.call<Entry>(t.admin, 'keychaincredential.create', {
        name: 'nas2',
        type: 'SSH_CREDENTIALS',
        attributes: { host: 'nas2.example', private_key: 1, remote_host_key: OTHER_PUBLIC },
      });
      const ssh = { ...PUSH, transport: 'SSH', target_dataset: 'backup/src' };
      expect(await refused(t, { ...ssh, ssh_credentials: 1 })).toEqual([
        ['ssh_credentials', '[EINVAL] Credential is not of type SSH_CREDENTIALS', EINVAL],
      ]);
      const entry = await create(t, { ...ssh, ssh_credentials: 2 });
      expect(entry.ssh_credentials).toEqual(credential);
      const updated = await t.call<Entry>(t.admin, 'replication.update', entry.id, { name: 'renamed' });
      expect(updated.ssh_credentials).toEqual(credential);
      const err = await t.callError(t.admin, 'replication.update', entry.id, { ssh_credentials: 9 });
      expect(triplesOf(err)).toEqual([
        ['replication_update.ssh_credentials', '[ENOENT] Credential does not exist', EINVAL],
      ]);
    });

    it('a caller with REPLICATION_TASK_READ alone reads the credentials’ attributes as ******** (Secret in KeychainCredentialEntry, MW/main.py:834-845, role_prefix REPLICATION_TASK); WRITE reads them', async () => {
      const t = await setup(release);
      const attributes = { host: 'nas2.example', private_key: 1, remote_host_key: OTHER_PUBLIC };
      await t.call(t.admin, 'keychaincredential.create', { name: 'nas2', type: 'SSH_CREDENTIALS', attributes });
      await create(t, {
        ...PUSH,
        transport: 'SSH',
        ssh_credentials: 1,
        target_dataset: 'backup/src',
        periodic_snapshot_tasks: [],
        also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
      });
      const reader = await createUserWithKey(t, 'reader', { privilegeRoles: ['REPLICATION_TASK_READ'] });
      const writer = await createUserWithKey(t, 'writer', { privilegeRoles: ['REPLICATION_TASK_WRITE'] });
      const { session: r } = await t.login(reader.key);
      const { session: w } = await t.login(writer.key);
      const hidden = { id: 1, name: 'nas2', type: 'SSH_CREDENTIALS', attributes: '********' };
      expect((await t.call<Entry[]>(r, 'replication.query'))[0]!.ssh_credentials).toEqual(hidden);
      expect((await t.call<Entry>(r, 'replication.get_instance', 1)).ssh_credentials).toEqual(hidden);
      const shown = (await t.call<Entry[]>(w, 'replication.query'))[0]!.ssh_credentials as Entry;
      expect(shown.attributes).toEqual({ ...attributes, port: 22, username: 'root', connect_timeout: 10 });
    });

    it('list_datasets of an SSH transport looks its credentials up, then says a remote shell is not emulated (MW/plugins/zettarepl.py:819-845)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'keychaincredential.create', {
        name: 'k',
        type: 'SSH_KEY_PAIR',
        attributes: { public_key: OTHER_PUBLIC },
      });
      const wrongType = await t.callError(t.admin, 'replication.list_datasets', 'SSH', 1);
      expect([wrongType.data?.error, wrongType.data?.reason]).toEqual([
        EINVAL,
        '[EINVAL] Credential is not of type SSH_CREDENTIALS',
      ]);
      await t.call(t.admin, 'keychaincredential.create', {
        name: 'nas2',
        type: 'SSH_CREDENTIALS',
        attributes: { host: 'nas2.example', private_key: 1, remote_host_key: OTHER_PUBLIC },
      });
      const remote = await t.callError(t.admin, 'replication.list_datasets', 'SSH', 2);
      expect(remote.data?.reason).toBe(
        '[EOPNOTSUPP] SSH transport is not emulated: stor serve makes no SSH or remote API connection',
      );
    });

    it('exclude: the bound task’s excludes, non-recursive, not below a source; a source the task excludes (replication.py:438-457)', async () => {
      const t = await setup(release);
      await snapshotTask(t, { exclude: ['tank/src/a'] });
      expect(await refused(t, { ...PUSH, exclude: ['tank/dst/x'] })).toEqual([
        ['exclude', "You should exclude 'tank/src/a' as bound periodic snapshot task dataset 'tank/src' does", EINVAL],
        ['exclude.0', 'This dataset is not a child of any of source datasets', EINVAL],
      ]);
      expect(
        await refused(t, { ...PUSH, source_datasets: ['tank/src/a'], recursive: false, exclude: ['tank/src/a/x'] }),
      ).toEqual([
        [
          'source_datasets.0',
          "Dataset 'tank/src/a' is excluded by bound periodic snapshot task for dataset 'tank/src'",
          EINVAL,
        ],
        ['exclude', 'Excluding child datasets is only supported for recursive replication', EINVAL],
      ]);
    });

    it('full filesystem replication: recursive, no exclude, properties, SOURCE, no nested sources, recursive tasks (replication.py:459-495)', async () => {
      const t = await setup(release);
      await snapshotTask(t, { recursive: false });
      expect(
        await refused(t, {
          ...PUSH,
          replicate: true,
          recursive: false,
          properties: false,
          retention_policy: 'NONE',
          source_datasets: ['tank/src', 'tank/src/a'],
        }),
      ).toEqual([
        ['recursive', 'This option is required for full filesystem replication', EINVAL],
        ['properties', 'This option is required for full filesystem replication', EINVAL],
        [
          'retention_policy',
          'Only `Same as Source` retention policy can be used for full filesystem replication',
          EINVAL,
        ],
        [
          'source_datasets.1',
          "Replication task that replicates the entire filesystem can't replicate both 'tank/src' and its child 'tank/src/a'",
          EINVAL,
        ],
        [
          'periodic_snapshot_tasks.0',
          'Replication tasks that replicate the entire filesystem can only use periodic snapshot tasks that take recursive snapshots of the dataset being replicated (or its ancestor)',
          EINVAL,
        ],
      ]);
    });

    it('encryption, schedule without auto, only-matching without schedule, name regex misuse (replication.py:497-526)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      expect(
        await refused(t, {
          ...PUSH,
          encryption: true,
          schedule: { minute: '5' },
          name_regex: 'auto-.*',
          also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
          retention_policy: 'CUSTOM',
          lifetime_value: 1,
          lifetime_unit: 'DAY',
        }),
      ).toEqual([
        ['encryption_key', 'This property is required when remote dataset encryption is enabled', EINVAL],
        ['encryption_key_format', 'This property is required when remote dataset encryption is enabled', EINVAL],
        ['encryption_key_location', 'This property is required when remote dataset encryption is enabled', EINVAL],
        ['schedule', "You can't have schedule for replication that does not run automatically", EINVAL],
        ['name_regex', "Naming regex can't be used with periodic snapshot tasks", EINVAL],
        ['name_regex', "Naming regex can't be used with Naming schema", EINVAL],
        [
          'retention_policy',
          'Only `Same as Source` and `None` retention policies can be used with Naming regex',
          EINVAL,
        ],
      ]);
      expect(await refused(t, { ...PUSH, only_matching_schedule: true })).toEqual([
        ['only_matching_schedule', "You can't have only-matching-schedule without schedule", EINVAL],
      ]);
    });

    it('name_regex is a Python pattern: named groups and escaped punctuation compile, an unknown escape or late global flags do not, in re’s words (replication.py:510-514)', async () => {
      const t = await setup(release);
      const byRegex = { ...PUSH, periodic_snapshot_tasks: [], name_regex: '' };
      for (const [i, regex] of ['(?P<kind>auto)-.*', 'auto\\-.*', 'a\\Z'].entries())
        await create(t, { ...byRegex, name: `regex ${i}`, name_regex: regex });
      // Python 3.11's re.error for `(${regex})$`, positions counted in that pattern.
      expect(await refused(t, { ...byRegex, name_regex: '\\p{L}' })).toEqual([
        ['name_regex', 'Invalid regex: bad escape \\p at position 1', EINVAL],
      ]);
      expect(await refused(t, { ...byRegex, name_regex: '(?i)AUTO-.*' })).toEqual([
        ['name_regex', 'Invalid regex: global flags not at the start of the expression at position 1', EINVAL],
      ]);
    });

    it(`retention: CUSTOM needs value and unit (a missing unit reported on ${release === '26.0' ? 'lifetime_unit, stable/26 replication.py:637-638' : 'lifetime_value, replication.py:531-532'}); others refuse them (:528-539)`, async () => {
      const t = await setup(release);
      await snapshotTask(t);
      expect(await refused(t, { ...PUSH, retention_policy: 'CUSTOM' })).toEqual([
        ['lifetime_value', 'This field is required for custom retention policy', EINVAL],
        [
          release === '26.0' ? 'lifetime_unit' : 'lifetime_value',
          'This field is required for custom retention policy',
          EINVAL,
        ],
      ]);
      expect(
        await refused(t, {
          ...PUSH,
          lifetime_value: 2,
          lifetime_unit: 'WEEK',
          lifetimes: [{ schedule: {}, lifetime_value: 1, lifetime_unit: 'DAY' }],
        }),
      ).toEqual([
        ['lifetime_value', 'This field has no sense for specified retention policy', EINVAL],
        ['lifetime_unit', 'This field has no sense for specified retention policy', EINVAL],
        ['lifetimes', 'This field has no sense for specified retention policy', EINVAL],
      ]);
    });

    it('refuses a disabled snapshot task bound to an enabled replication (replication.py:541-547), and duplicate task ids as UniqueList does', async () => {
      const t = await setup(release);
      await snapshotTask(t, { enabled: false });
      expect(await refused(t, PUSH)).toEqual([
        [
          'periodic_snapshot_tasks.0',
          "You can't bind disabled periodic snapshot task to enabled replication task",
          EINVAL,
        ],
      ]);
      expect(await create(t, { ...PUSH, enabled: false })).toMatchObject({ enabled: false });
      expect(
        triplesOf(await t.callError(t.admin, 'replication.create', { ...PUSH, periodic_snapshot_tasks: [1, 1] })),
      ).toEqual([['replication_create.periodic_snapshot_tasks', 'List must be unique', EINVAL]]);
    });

    it('update lays the changes over the stored task and checks the whole; an unknown id is InstanceNotFound (replication.py:238-250)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, PUSH);
      const err = await t.callError(t.admin, 'replication.update', 1, {
        retention_policy: 'CUSTOM',
        lifetime_value: 1,
      });
      expect(triplesOf(err)).toEqual([
        [
          `replication_update.${release === '26.0' ? 'lifetime_unit' : 'lifetime_value'}`,
          'This field is required for custom retention policy',
          EINVAL,
        ],
      ]);
      const updated = await t.call<Entry>(t.admin, 'replication.update', 1, {
        retention_policy: 'CUSTOM',
        lifetime_value: 1,
        lifetime_unit: 'DAY',
      });
      expect(updated).toMatchObject({
        retention_policy: 'CUSTOM',
        lifetime_value: 1,
        periodic_snapshot_tasks: [{ id: 1 }],
      });
      const missing = await t.callError(t.admin, 'replication.update', 9, { name: 'x' });
      expect(missing.data?.reason).toBe('[ENOENT] None: Replication 9 does not exist');
      expect((await t.callError(t.admin, 'replication.delete', 9)).data?.reason).toBe(
        '[ENOENT] None: Replication 9 does not exist',
      );
    });

    it(`run: an unknown id is InstanceNotFound; ${release === '26.0' ? '26.0 runs a disabled task (stable/26 replication.py:310-324)' : 'a disabled task is refused (replication.py:309-310)'}; a run fails with zettarepl's text`, async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, { ...PUSH, enabled: false });
      expect((await t.callError(t.admin, 'replication.run', 9)).data?.reason).toBe(
        '[ENOENT] None: Replication 9 does not exist',
      );
      const disabled = await t.callError(t.admin, 'replication.run', 1);
      expect(disabled.data?.reason).toBe(
        release === '26.0'
          ? "[EFAULT] Dataset 'tank/src' does not have any matching snapshots to replicate."
          : '[EFAULT] Task is not enabled',
      );
    });

    it('run_onetime checks as a temporary task under replication_run_onetime (replication.py:320-335)', async () => {
      const t = await setup(release);
      const { name: _n, auto: _a, ...onetime } = PUSH;
      const err = await t.callError(t.admin, 'replication.run_onetime', { ...onetime, periodic_snapshot_tasks: [] });
      expect(triplesOf(err)).toEqual([
        [
          'replication_run_onetime.periodic_snapshot_tasks',
          'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
          EINVAL,
        ],
      ]);
      const ok = await t.callError(t.admin, 'replication.run_onetime', {
        ...onetime,
        periodic_snapshot_tasks: [],
        name_regex: '.*',
      });
      // Past the checks, zettarepl runs it: no snapshot yet (zettarepl/replication/run.py, the engine's plan.ts).
      expect(ok.data?.reason).toBe("[EFAULT] Dataset 'tank/src' does not have any matching snapshots to replicate.");
    });

    it('list_naming_schemas, list_datasets, count_eligible_manual_snapshots and target_unmatched_snapshots answer from this appliance for LOCAL (MW/plugins/zettarepl.py:502-591)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, { ...PUSH, also_include_naming_schema: ['manual-%Y-%m-%d_%H-%M'] });
      expect(await t.call(t.admin, 'replication.list_naming_schemas')).toEqual([
        'auto-%Y-%m-%d_%H-%M',
        'manual-%Y-%m-%d_%H-%M',
      ]);
      const datasets = await t.call<string[]>(t.admin, 'replication.list_datasets', 'LOCAL');
      expect(datasets).toEqual(expect.arrayContaining(['tank', 'tank/dst', 'tank/src', 'tank/src/a']));
      expect((await t.callError(t.admin, 'replication.list_datasets', 'SSH')).data?.reason).toBe(
        '[EFAULT] You should pass SSH credentials for SSH transport',
      );
      for (const [ds, name] of [
        ['tank/src', 'auto-2024-01-05_03-07'],
        ['tank/src', 'other'],
        ['tank/dst', 'auto-2024-01-05_03-07'],
        ['tank/dst', 'auto-2023-01-05_03-07'],
      ])
        await t.call(t.admin, 'pool.snapshot.create', { dataset: ds, name });
      expect(
        await t.call(t.admin, 'replication.count_eligible_manual_snapshots', {
          datasets: ['tank/src'],
          naming_schema: ['auto-%Y-%m-%d_%H-%M'],
          transport: 'LOCAL',
        }),
      ).toEqual({ total: 2, eligible: 1 });
      expect(
        (
          await t.callError(t.admin, 'replication.count_eligible_manual_snapshots', {
            datasets: ['tank/src'],
            transport: 'LOCAL',
          })
        ).data?.reason,
      ).toBe('[EINVAL] Either `naming_schema` or `name_regex` must be specified');
      expect(
        await t.call(t.admin, 'replication.target_unmatched_snapshots', 'PUSH', ['tank/src'], 'tank/dst', 'LOCAL'),
      ).toEqual({ 'tank/dst': ['auto-2023-01-05_03-07'] });
    });

    it('a snapshot task bound to an enabled replication cannot be disabled nor deleted while it is the last; deleting it otherwise unbinds it (MW/plugins/snapshot.py:202-211, 269-280)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, PUSH);
      expect(triplesOf(await t.callError(t.admin, 'pool.snapshottask.update', 1, { enabled: false }))).toEqual([
        [
          'periodic_snapshot_update.enabled',
          "You can't disable this periodic snapshot task because it is bound to enabled replication task 1",
          EINVAL,
        ],
      ]);
      expect((await t.callError(t.admin, 'pool.snapshottask.delete', 1)).data?.reason).toBe(
        "[EFAULT] You are deleting the last periodic snapshot task bound to enabled replication task 'push' which will break it. Please, disable that replication task first.",
      );
      await t.call(t.admin, 'replication.update', 1, { enabled: false });
      expect(await t.call(t.admin, 'pool.snapshottask.delete', 1)).toBe(true);
      // storage_replication_repl_periodic_snapshot_tasks's task_id ON DELETE CASCADE (replication.py:96-101).
      expect(await t.call(t.admin, 'replication.get_instance', 1)).toMatchObject({ periodic_snapshot_tasks: [] });
    });

    it('pool.dataset.delete deletes the enabled replications whose source or LOCAL target is at or below it (replication.py:648-669)', async () => {
      const t = await setup(release);
      await snapshotTask(t);
      await create(t, PUSH);
      await create(t, { ...PUSH, name: 'off', enabled: false });
      await t.call(t.admin, 'pool.dataset.delete', 'tank/dst', { recursive: true });
      expect(await t.call(t.admin, 'replication.query', [], { select: ['name'] })).toEqual([{ name: 'off' }]);
    });

    it('replication.config answers and keeps max_parallel_replication_tasks, 5 at first (MW/plugins/replication_/config.py:65-102)', async () => {
      const t = await setup(release);
      expect(await t.call(t.admin, 'replication.config.config')).toEqual({ id: 1, max_parallel_replication_tasks: 5 });
      expect(await t.call(t.admin, 'replication.config.update', { max_parallel_replication_tasks: 2 })).toEqual({
        id: 1,
        max_parallel_replication_tasks: 2,
      });
    });
  });
}

describe('replication.run on 26.0 takes options {really_run} (stable/26 MW/api/v26_0_0/replication.py:288-309)', () => {
  it('refuses 25.10.1’s positional really_run', async () => {
    const t = await setup('26.0');
    await snapshotTask(t);
    await create(t, PUSH);
    const err = await t.callError(t.admin, 'replication.run', 1, false);
    expect(triplesOf(err)[0]![0]).toBe('options');
    expect((await t.callError(t.admin, 'replication.run', 1, { really_run: true })).data?.reason).toBe(
      "[EFAULT] Dataset 'tank/src' does not have any matching snapshots to replicate.",
    );
  });
});
