/**
 * pool.snapshottask.* of the embedded appliance, as 25.10.1 and 26.0 answer them, driven in-process
 * through the real dispatcher (every answer checked against the release's contract). The sources
 * followed (MW = src/middlewared/middlewared at TS-25.10.1; stable/26 where it says so):
 * - the models: MW/api/v25_10_1/pool_snapshottask.py; stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57;
 *   CronModel MW/api/v25_10_1/common.py:77-100 over MW/utils/cron.py:9-18 (croniter 1.3.5);
 *   TimeString MW/api/base/validators.py:19-29; SnapshotNameSchema MW/api/base/types/string.py:74;
 * - PeriodicSnapshotTaskService: MW/plugins/snapshot.py:40-356, MW/plugins/snapshot_/task_retention.py;
 * - run: MW/plugins/zettarepl.py:390-394, 917-940; zettarepl/zettarepl.py:123-192, snapshot/empty.py:17-52;
 * - events: MW/service/crud_service.py:204-216; roles: MW/main.py:315-337.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectionUpdate } from '../../../../src/core/appliance/events.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
type Triple = [string | null, string, number];

const EINVAL = 22;
/**
 * 2024-01-05 03:07:30 on the appliance's clock, whose zone is system.info's America/Los_Angeles
 * (UTC-8 in January), whatever this machine's is: the name `auto-2024-01-05_03-07`.
 */
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);

/** An appliance of `release` with tank/data, tank/data/a and tank/data/b, its clock at AT. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  for (const name of ['tank/data', 'tank/data/a', 'tank/data/b'])
    await t.call(t.admin, 'pool.dataset.create', { name });
  t.appliance.now = () => AT;
  return t;
}

const create = (t: TestAppliance, data: Entry) => t.call<Entry>(t.admin, 'pool.snapshottask.create', data);
const snapshotIds = async (t: TestAppliance) =>
  (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [], { select: ['id'] })).map((s) => s.id);

function triplesOf(err: RpcError): Triple[] {
  expect(err.code).toBe(-32602);
  return err.data!.extra as Triple[];
}

/** PoolSnapshotTaskCreate's fields, in its order (pool_snapshottask.py:30-51). */
const TASK_FIELDS = [
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

const DEFAULT_SCHEDULE = { minute: '00', hour: '*', dom: '*', month: '*', dow: '*', begin: '00:00', end: '23:59' };

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`pool.snapshottask on ${release}`, () => {
    it('create fills PoolSnapshotTaskCreate’s defaults and answers the entry in the release’s field order, state PENDING', async () => {
      const t = await setup(release);
      const entry = await create(t, { dataset: 'tank/data' });
      expect(entry).toEqual({
        id: 1,
        dataset: 'tank/data',
        recursive: false,
        lifetime_value: 2,
        lifetime_unit: 'WEEK',
        enabled: true,
        exclude: [],
        naming_schema: 'auto-%Y-%m-%d_%H-%M',
        allow_empty: true,
        schedule: DEFAULT_SCHEDULE,
        vmware_sync: false,
        state: { state: 'PENDING' },
      });
      // 25.10.1: DBEntry's id and state after the create fields (pool_snapshottask.py:68-80); 26.0: id first.
      const order =
        release === '26.0'
          ? ['id', ...TASK_FIELDS, 'vmware_sync', 'state']
          : [...TASK_FIELDS, 'id', 'state', 'vmware_sync'];
      expect(Object.keys(entry)).toEqual(order);
      expect(await t.call(t.admin, 'pool.snapshottask.get_instance', 1)).toEqual(entry);
      // begin and end are read back as the database's time (`str(time)[:5]`).
      const later = await create(t, { dataset: 'tank/data', schedule: { begin: '9:5', end: '18:00' } });
      expect(later.schedule).toEqual({ ...DEFAULT_SCHEDULE, begin: '09:05', end: '18:00' });
    });

    it('refuses in _validate’s order and words: dataset not found, exclude without recursive, an exclude not below the dataset (MW/plugins/snapshot.py:334-356)', async () => {
      const t = await setup(release);
      const err = await t.callError(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/nope',
        exclude: ['tank/data/a'],
      });
      expect(triplesOf(err)).toEqual([
        ['periodic_snapshot_create.dataset', 'Dataset not found', EINVAL],
        [
          'periodic_snapshot_create.exclude',
          'Excluding datasets is not necessary for non-recursive periodic snapshot tasks',
          EINVAL,
        ],
        [
          'periodic_snapshot_create.exclude.0',
          'Excluded dataset should be a child or other descendant of the selected dataset',
          EINVAL,
        ],
      ]);
      expect(await t.call(t.admin, 'pool.snapshottask.query')).toEqual([]);
    });

    it('refuses a naming schema without %H, a minute of 61, an hour of 24, a begin of 25:00 and an unknown unit as the models do', async () => {
      const t = await setup(release);
      const refused = async (data: Entry) =>
        triplesOf(await t.callError(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data', ...data }));
      expect(await refused({ naming_schema: 'auto-%Y-%m-%d' })).toEqual([
        ['data.naming_schema', 'Value error, %H must be present in snapshot naming schema', EINVAL],
      ]);
      // croniter 1.3.5's words for the expression croniter_for_schedule builds (a space after each field).
      expect(await refused({ schedule: { minute: '61' } })).toEqual([
        [
          'data.schedule',
          'Value error, Please ensure fields match cron syntax - [61 * * * * ] is not acceptable, out of range',
          EINVAL,
        ],
      ]);
      expect(await refused({ schedule: { hour: '24' } })).toEqual([
        [
          'data.schedule',
          'Value error, Please ensure fields match cron syntax - [00 24 * * * ] is not acceptable, out of range',
          EINVAL,
        ],
      ]);
      expect(await refused({ schedule: { minute: '1,2/3' } })).toEqual([
        [
          'data.schedule',
          'Value error, Please ensure fields match cron syntax - Only range or `*` are allowed before `/`',
          EINVAL,
        ],
      ]);
      expect(await refused({ schedule: { begin: '25:00' } })).toEqual([
        ['data.schedule.begin', 'Value error, hour must be in 0..23', EINVAL],
      ]);
      const unit = await refused({ lifetime_unit: 'SECOND' });
      expect(unit[0]![0]).toBe('data.lifetime_unit');
      expect(unit[0]![1]).toBe("Input should be 'HOUR', 'DAY', 'WEEK', 'MONTH' or 'YEAR'");
    });

    it('update lays the changes over the stored task and checks the whole; an unknown id is not found', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data', recursive: true, exclude: ['tank/data/a'] });
      const updated = await t.call<Entry>(t.admin, 'pool.snapshottask.update', 1, {
        lifetime_value: 3,
        schedule: { minute: '15', hour: '*/2' },
      });
      expect(updated).toMatchObject({
        lifetime_value: 3,
        recursive: true,
        exclude: ['tank/data/a'],
        schedule: { ...DEFAULT_SCHEDULE, minute: '15', hour: '*/2' },
      });
      const err = await t.callError(t.admin, 'pool.snapshottask.update', 1, { recursive: false });
      expect(triplesOf(err)).toEqual([
        [
          'periodic_snapshot_update.exclude',
          'Excluding datasets is not necessary for non-recursive periodic snapshot tasks',
          EINVAL,
        ],
      ]);
      const missing = await t.callError(t.admin, 'pool.snapshottask.update', 9, { enabled: false });
      expect(missing.data?.reason).toBe('[ENOENT] None: PeriodicSnapshotTask 9 does not exist');
    });

    it('delete answers true; an unknown id is true on 25.10.1 (looked up only for the audit) and not found on 26.0', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data' });
      expect(await t.call(t.admin, 'pool.snapshottask.delete', 1)).toBe(true);
      expect(await t.call(t.admin, 'pool.snapshottask.query')).toEqual([]);
      if (release === '26.0') {
        const err = await t.callError(t.admin, 'pool.snapshottask.delete', 1);
        expect(err.data?.reason).toBe('[ENOENT] None: PeriodicSnapshotTask 1 does not exist');
      } else expect(await t.call(t.admin, 'pool.snapshottask.delete', 1)).toBe(true);
    });

    it('sends collection_update ADDED, CHANGED and REMOVED on pool.snapshottask.query (MW/service/crud_service.py:204-216)', async () => {
      const t = await setup(release);
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'pool.snapshottask.query');
      const created = await create(t, { dataset: 'tank/data' });
      const updated = await t.call(t.admin, 'pool.snapshottask.update', 1, { enabled: false });
      await t.call(t.admin, 'pool.snapshottask.delete', 1);
      expect(heard).toEqual([
        { msg: 'added', collection: 'pool.snapshottask.query', id: 1, fields: created },
        { msg: 'changed', collection: 'pool.snapshottask.query', id: 1, fields: updated },
        { msg: 'removed', collection: 'pool.snapshottask.query', id: 1 },
      ]);
    });

    it('run takes the snapshot named by the schema at the appliance’s time, recursive with exclude honoured, and reports FINISHED', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data', recursive: true, exclude: ['tank/data/b'] });
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07', 'tank/data/a@auto-2024-01-05_03-07']);
      const { state } = await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', 1);
      expect(state).toEqual({
        state: 'FINISHED',
        datetime: { $date: AT },
        last_snapshot: 'tank/data@auto-2024-01-05_03-07',
      });
    });

    it('run is heard as pool.snapshottask.query CHANGED with the state alone, RUNNING then FINISHED (MW/plugins/snapshot.py:385-388)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data' });
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'pool.snapshottask.query');
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      expect(heard).toEqual([
        {
          msg: 'changed',
          collection: 'pool.snapshottask.query',
          id: 1,
          fields: { state: { state: 'RUNNING', datetime: { $date: AT }, last_snapshot: null } },
        },
        {
          msg: 'changed',
          collection: 'pool.snapshottask.query',
          id: 1,
          fields: {
            state: { state: 'FINISHED', datetime: { $date: AT }, last_snapshot: 'tank/data@auto-2024-01-05_03-07' },
          },
        },
      ]);
    });

    it('disabling a task forgets its state: it reads PENDING again (MW/plugins/zettarepl_/state.py:88-107)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data' });
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      await t.call(t.admin, 'pool.snapshottask.update', 1, { lifetime_value: 4 });
      expect((await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', 1)).state).toMatchObject({
        state: 'FINISHED',
      });
      const disabled = await t.call<Entry>(t.admin, 'pool.snapshottask.update', 1, { enabled: false });
      expect(disabled.state).toEqual({ state: 'PENDING' });
    });

    it('run again in the same minute reports zfs’s refusal as the task’s ERROR state and takes nothing', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data' });
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      const { state } = await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', 1);
      expect(state).toEqual({
        state: 'ERROR',
        datetime: { $date: AT },
        error: "cannot create snapshot 'tank/data@auto-2024-01-05_03-07': dataset already exists.",
        last_snapshot: 'tank/data@auto-2024-01-05_03-07',
      });
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07']);
    });

    it('run of a task that is not enabled: CallError "Task is not enabled"; of an unknown id: not found (MW/plugins/snapshot.py:327-330)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data', enabled: false });
      expect((await t.callError(t.admin, 'pool.snapshottask.run', 1)).data?.reason).toBe(
        '[EFAULT] Task is not enabled',
      );
      expect((await t.callError(t.admin, 'pool.snapshottask.run', 5)).data?.reason).toBe(
        '[ENOENT] None: PeriodicSnapshotTask 5 does not exist',
      );
      expect(await snapshotIds(t)).toEqual([]);
    });

    it('run applies retention after it, as the interrupted scheduler does: an expired snapshot of the task goes, a manual one stays (MW/plugins/zettarepl.py:250-256; zettarepl/scheduler/scheduler.py:26-43, zettarepl/zettarepl.py:105-119)', async () => {
      const t = await setup(release);
      const schedule = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };
      await create(t, { dataset: 'tank/data', lifetime_value: 1, lifetime_unit: 'HOUR', schedule });
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'manual-1' });
      t.appliance.now = () => AT + 3_600_000;
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      expect(await snapshotIds(t)).toEqual(['tank/data@manual-1', 'tank/data@auto-2024-01-05_04-07']);
    });

    it('allow_empty false: a run that finds nothing written since the last snapshot destroys what it took; a change keeps it (zettarepl/snapshot/empty.py:17-37)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data', allow_empty: false });
      writeFileSync(join(t.stateDir, 'mnt', 'tank', 'data', 'f'), 'one');
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      t.appliance.now = () => AT + 60_000;
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07']);
      writeFileSync(join(t.stateDir, 'mnt', 'tank', 'data', 'f'), 'two');
      t.appliance.now = () => AT + 120_000;
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07', 'tank/data@auto-2024-01-05_03-09']);
    });

    it('pool.dataset.delete deletes the enabled tasks on the dataset or below it; a disabled one stays (MW/plugins/snapshot.py:359-382, MW/plugins/pool_/dataset.py:828-832)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data/a' });
      await create(t, { dataset: 'tank/data/a', enabled: false });
      await create(t, { dataset: 'tank/data/b' });
      await t.call(t.admin, 'pool.dataset.delete', 'tank/data/a');
      const left = await t.call<Entry[]>(t.admin, 'pool.snapshottask.query', [], { select: ['id', 'dataset'] });
      expect(left).toEqual([
        { id: 2, dataset: 'tank/data/a' },
        { id: 3, dataset: 'tank/data/b' },
      ]);
    });

    it('max_count answers 512 and max_total_count 10000 (MW/plugins/snapshot.py:301-319)', async () => {
      const t = await setup(release);
      expect(await t.call(t.admin, 'pool.snapshottask.max_count')).toBe(512);
      expect(await t.call(t.admin, 'pool.snapshottask.max_total_count')).toBe(10000);
      const extra = await t.callError(t.admin, 'pool.snapshottask.max_count', 1);
      expect(extra.code).toBe(-32602);
    });

    it('delete_will_change_retention_for lists the task’s snapshots by dataset; update_will_change_retention_for those a change leaves (task_retention.py:16-55)', async () => {
      const t = await setup(release);
      // The run at 03:07 is on this schedule, so its snapshots are the task's.
      await create(t, { dataset: 'tank/data', recursive: true, schedule: { ...DEFAULT_SCHEDULE, minute: '07' } });
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'manual-1' });
      const all = {
        'tank/data': ['auto-2024-01-05_03-07'],
        'tank/data/a': ['auto-2024-01-05_03-07'],
        'tank/data/b': ['auto-2024-01-05_03-07'],
      };
      expect(await t.call(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 1)).toEqual(all);
      expect(
        await t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, { lifetime_value: 5 }),
      ).toEqual({});
      expect(
        await t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, { recursive: false }),
      ).toEqual({
        'tank/data/a': ['auto-2024-01-05_03-07'],
        'tank/data/b': ['auto-2024-01-05_03-07'],
      });
      expect(
        await t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, {
          naming_schema: 'manual-%Y%m%d%H%M',
        }),
      ).toEqual(all);
      const missing = await t.callError(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 4);
      expect(missing.data?.reason).toBe('[ENOENT] None: PeriodicSnapshotTask 4 does not exist');
      const bad = await t.callError(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, {
        recursive: 'x',
      });
      expect(triplesOf(bad)[0]![0]).toBe('data.recursive');
    });

    it('a snapshot of the schema at a time the schedule does not run is not the task’s; a schedule or window change leaves those it no longer runs at (MW/plugins/zettarepl_/snapshot_removal_date.py:60-78; zettarepl/snapshot/task/snapshot_owner.py:29-30)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data', schedule: { ...DEFAULT_SCHEDULE, minute: '07' } });
      await t.call(t.admin, 'pool.snapshottask.run', 1);
      // Named by the schema, at 03:30: the task runs at minute 7 only.
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'auto-2024-01-05_03-30' });
      expect(await t.call(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 1)).toEqual({
        'tank/data': ['auto-2024-01-05_03-07'],
      });
      const leaves = (schedule: Entry) =>
        t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, { schedule });
      expect(await leaves({ ...DEFAULT_SCHEDULE, minute: '30' })).toEqual({ 'tank/data': ['auto-2024-01-05_03-07'] });
      expect(await leaves({ ...DEFAULT_SCHEDULE, minute: '*/7' })).toEqual({});
      // 03:07 falls outside a 09:00–17:00 window (zettarepl/scheduler/cron.py:37-44).
      expect(await leaves({ ...DEFAULT_SCHEDULE, minute: '07', begin: '09:00', end: '17:00' })).toEqual({
        'tank/data': ['auto-2024-01-05_03-07'],
      });
    });

    it('a READONLY_ADMIN may read tasks and the counts but not create or run: EACCES (SNAPSHOT_TASK_READ in READONLY_ADMIN)', async () => {
      const t = await setup(release);
      await create(t, { dataset: 'tank/data' });
      const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
      const { session } = await t.login(key);
      expect(await t.call(session, 'pool.snapshottask.query')).toHaveLength(1);
      expect(await t.call(session, 'pool.snapshottask.max_count')).toBe(512);
      expect(await t.call(session, 'pool.snapshottask.delete_will_change_retention_for', 1)).toEqual({});
      for (const [method, params] of [
        ['pool.snapshottask.create', [{ dataset: 'tank/data' }]],
        ['pool.snapshottask.update', [1, { enabled: false }]],
        ['pool.snapshottask.delete', [1]],
        ['pool.snapshottask.run', [1]],
      ] as const) {
        expect((await t.callError(session, method, ...params)).data?.reason).toBe('[EACCES] Not authorized');
      }
    });
  });
}
