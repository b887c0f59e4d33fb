/**
 * replication.run, run_onetime and create_dataset of the embedded appliance running LOCAL push
 * replications through the copy engine, on 25.10.1 and 26.0, driven through the real dispatcher.
 * What they follow (MW = src/middlewared/middlewared at TS-25.10.1; zettarepl at release/25.10.1):
 * - run / run_onetime: MW/plugins/replication.py:296-342 (stable/26 :304-324 takes options);
 * - the job: MW/plugins/zettarepl.py:396-500 (`_run_replication_task_job`, its progress text);
 * - the task's state: the observer, MW/plugins/zettarepl.py:951-1051, zettarepl_/state.py:53-127,
 *   heard as `replication.query` CHANGED (MW/plugins/replication.py:681-684);
 * - create_dataset: MW/plugins/zettarepl.py:513-516, zettarepl/dataset/create.py:11-12;
 * - the scheduler: zettarepl/zettarepl.py:84-121, 194-205.
 * The appliance's zone is America/Los_Angeles: in January, UTC-8.
 */
import { describe, expect, it } from 'vitest';
import type { CollectionUpdate } from '../../../../src/core/appliance/events.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { SnapshotTaskScheduler } from '../../../../src/core/appliance/snapshot-tasks/scheduler.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { localPush } from '../../../helpers/replication-spec.js';

type Entry = Record<string, unknown>;
type Release = '25.10.1' | '26.0';

/** The instant at which the appliance's wall clock reads 2024-01-05 HH:MM. */
const la = (hour: number, minute = 0) => Date.UTC(2024, 0, 5, hour + 8, minute, 0);
const SCHEMA = 'auto-%Y-%m-%d_%H-%M';
const snapName = (hour: number) => `auto-2024-01-05_${String(hour).padStart(2, '0')}-00`;
const HOURLY = { minute: '0', hour: '*', dom: '*', month: '*', dow: '*' };

/** An appliance of `release` with tank/src and snapshot task 1 (hourly, SCHEMA) on it. */
async function setup(release: Release): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/src' });
  await t.call(t.admin, 'core.set_options', { legacy_jobs: false });
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/src', naming_schema: SCHEMA, schedule: HOURLY });
  return t;
}

/** Snapshot task 1 run at the appliance's wall clock `hour`:00. */
async function snap(t: TestAppliance, hour: number): Promise<void> {
  t.appliance.now = () => la(hour);
  await t.call(t.admin, 'pool.snapshottask.run', 1);
}

/** A LOCAL PUSH of tank/src into tank/dst bound to snapshot task 1, run by hand. */
const PUSH: Entry = localPush();

const run = (t: TestAppliance, release: Release, id = 1) =>
  release === '26.0'
    ? t.call(t.admin, 'replication.run', id, { really_run: true })
    : t.call(t.admin, 'replication.run', id, true);
const runError = (t: TestAppliance, release: Release, id = 1) =>
  release === '26.0'
    ? t.callError(t.admin, 'replication.run', id, { really_run: true })
    : t.callError(t.admin, 'replication.run', id, true);

const snapshotIds = async (t: TestAppliance, dataset: string) =>
  (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', dataset]], { select: ['name'] })).map(
    (s) => s.name as string,
  );

/** Collects the events of `collections` the admin session hears. */
async function listen(t: TestAppliance, ...collections: string[]): Promise<CollectionUpdate[]> {
  const heard: CollectionUpdate[] = [];
  t.admin.notify = (_method, params) => heard.push(structuredClone(params as CollectionUpdate));
  for (const c of collections) await t.call(t.admin, 'core.subscribe', c);
  return heard;
}

/** The progress texts of the jobs heard, in order, once each. */
const progressTexts = (heard: CollectionUpdate[]) => {
  const texts: string[] = [];
  for (const e of heard) {
    if (e.collection !== 'core.get_jobs') continue;
    const text = (e.fields as { progress?: { description?: string } } | undefined)?.progress?.description;
    if (text && texts.at(-1) !== text) texts.push(text);
  }
  return texts;
};

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`replication.run of a LOCAL push on ${release}`, () => {
    it("a second argument of the wrong type is refused in pydantic's strict words (MW/api/v25_10_1/replication.py:228-232; stable/26 MW/api/v26_0_0/replication.py:288-298)", async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      const err = await t.callError(t.admin, 'replication.run', 1, 'x');
      // A model field given a non-dict: pydantic's model_type error, naming the model.
      expect(err.data?.extra).toEqual([
        release === '26.0'
          ? ['options', 'Input should be a valid dictionary or instance of ReplicationRunOptions', 22]
          : ['really_run', 'Input should be a valid boolean', 22],
      ]);
    });

    it('the first run sends every snapshot, the second only the new one, with the middleware’s progress text (MW/plugins/zettarepl.py:466-500)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      await snap(t, 10);
      const heard = await listen(t, 'core.get_jobs');
      expect(await run(t, release)).toBeNull();
      expect(await snapshotIds(t, 'tank/dst')).toEqual([`tank/dst@${snapName(9)}`, `tank/dst@${snapName(10)}`]);
      // The oldest sent whole, then the next on it (zettarepl/replication/run.py:754-757 reports each).
      expect(progressTexts(heard)).toEqual([
        `Sending 1 of 2: tank/src@${snapName(9)}`,
        `Sending 2 of 2: tank/src@${snapName(10)}`,
      ]);
      await snap(t, 11);
      heard.length = 0;
      await run(t, release);
      expect(await snapshotIds(t, 'tank/dst')).toEqual([
        `tank/dst@${snapName(9)}`,
        `tank/dst@${snapName(10)}`,
        `tank/dst@${snapName(11)}`,
      ]);
      expect(progressTexts(heard)).toEqual([`Sending 1 of 1: tank/src@${snapName(11)}`]);
    });

    it('the task goes RUNNING then FINISHED with last_snapshot, each heard as replication.query CHANGED; `job` is its run (MW/plugins/zettarepl.py:951-1041, zettarepl_/state.py:53-73)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      t.appliance.now = () => la(9, 5);
      const heard = await listen(t, 'replication.query');
      await run(t, release);
      const states = heard.map((e) => (e.fields as { state: Entry }).state);
      expect(heard.every((e) => e.msg === 'changed' && e.id === 1)).toBe(true);
      expect(states.map((s) => s.state)).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'FINISHED']);
      expect(states[1]).toMatchObject({
        state: 'RUNNING',
        progress: { dataset: 'tank/src', snapshot: snapName(9), snapshots_sent: 0, snapshots_total: 1 },
      });
      expect(states[2]).toMatchObject({ state: 'RUNNING', last_snapshot: `tank/src@${snapName(9)}` });
      expect((states[0]!.job as Entry).method).toBe('replication.run');
      const entry = await t.call<Entry>(t.admin, 'replication.get_instance', 1);
      expect(entry.state).toEqual({
        state: 'FINISHED',
        datetime: { $date: la(9, 5) },
        warnings: [],
        last_snapshot: `tank/src@${snapName(9)}`,
      });
      expect(entry.job).toMatchObject({
        method: 'replication.run',
        state: 'SUCCESS',
        arguments: [1, expect.anything()],
      });
    });

    it('a diverged target fails the job with zettarepl’s text as a sentence and the task is ERROR (MW/plugins/zettarepl.py:462-463, 1043-1048)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/dst' });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'mine' });
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      const err = await runError(t, release);
      const text = "No incremental base on dataset 'tank/src' and replication from scratch is not allowed.";
      expect(err.data?.reason).toBe(`[EFAULT] ${text}`);
      const entry = await t.call<Entry>(t.admin, 'replication.get_instance', 1);
      expect(entry.state).toMatchObject({ state: 'ERROR', error: text, last_snapshot: null });
      expect(entry.job).toMatchObject({ state: 'FAILED' });
    });

    it('a second run while one runs is refused "Task is already running" (MW/plugins/replication.py:312-313)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      const [first, second] = await Promise.allSettled([run(t, release), run(t, release)]);
      expect(first.status).toBe('fulfilled');
      expect(second).toMatchObject({
        status: 'rejected',
        reason: { data: { reason: '[EFAULT] Task is already running' } },
      });
      expect(await snapshotIds(t, 'tank/dst')).toEqual([`tank/dst@${snapName(9)}`]);
    });

    it('run_onetime runs the data as a temporary task, leaving no task behind (MW/plugins/replication.py:320-342)', async () => {
      const t = await setup(release);
      await snap(t, 9);
      const { name: _n, auto: _a, ...data } = PUSH;
      expect(await t.call(t.admin, 'replication.run_onetime', data)).toBeNull();
      expect(await snapshotIds(t, 'tank/dst')).toEqual([`tank/dst@${snapName(9)}`]);
      expect(await t.call(t.admin, 'replication.query')).toEqual([]);
      const err = await t.callError(t.admin, 'replication.run_onetime', {
        ...data,
        target_dataset: 'tank/other',
        periodic_snapshot_tasks: [],
        name_regex: 'nomatch',
      });
      expect(err.data?.reason).toBe("[EFAULT] Dataset 'tank/src' does not have any matching snapshots to replicate.");
    });

    it('create_dataset makes the dataset and its missing parents, as `zfs create -p` (zettarepl/dataset/create.py:11-12)', async () => {
      const t = await setup(release);
      expect(await t.call(t.admin, 'replication.create_dataset', 'tank/a/b', 'LOCAL')).toBeNull();
      const ids = (await t.call<Entry[]>(t.admin, 'pool.dataset.query', [], { select: ['id'] })).map((d) => d.id);
      expect(ids).toEqual(expect.arrayContaining(['tank/a', 'tank/a/b']));
    });

    it('create_dataset below a volume is refused as `zfs create -p` refuses it, and makes nothing (libzfs check_parents)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/vol', type: 'VOLUME', volsize: 16 * 1024 * 1024 });
      const err = await t.callError(t.admin, 'replication.create_dataset', 'tank/vol/a/b', 'LOCAL');
      expect(err.message).toBe("[EFAULT] cannot create 'tank/vol/a/b': parent is not a filesystem");
      const ids = (await t.call<Entry[]>(t.admin, 'pool.dataset.query', [], { select: ['id'] })).map((d) => d.id);
      expect(ids).not.toContain('tank/vol/a');
    });

    it('the scheduler runs an automatic task after its bound snapshot task’s tick, and one with a schedule at its schedule (zettarepl/zettarepl.py:84-121, 194-205)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', { ...PUSH, auto: true });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/other' });
      await t.call(t.admin, 'replication.create', {
        ...PUSH,
        name: 'scheduled',
        target_dataset: 'tank/other/dst',
        auto: true,
        schedule: { minute: '30', hour: '*', dom: '*', month: '*', dow: '*' },
      });
      const scheduler = new SnapshotTaskScheduler(t.appliance);
      t.appliance.now = () => la(9);
      await scheduler.tick(la(9));
      expect(await snapshotIds(t, 'tank/dst')).toEqual([`tank/dst@${snapName(9)}`]);
      expect(await snapshotIds(t, 'tank/other/dst')).toEqual([]);
      t.appliance.now = () => la(9, 30);
      await scheduler.tick(la(9, 30));
      expect(await snapshotIds(t, 'tank/other/dst')).toEqual([`tank/other/dst@${snapName(9)}`]);
      const entry = await t.call<Entry>(t.admin, 'replication.get_instance', 1);
      expect(entry.state).toMatchObject({ state: 'FINISHED', last_snapshot: `tank/src@${snapName(9)}` });
      // The observer starts a job for a run nobody asked for (MW/plugins/zettarepl.py:961-963;
      // stable/26 :994-997 with ReplicationRunOptions(really_run=False)).
      const args = release === '26.0' ? [1, { really_run: false }] : [1, false];
      expect(entry.job).toMatchObject({ method: 'replication.run', arguments: args, state: 'SUCCESS' });
    });

    it('a run without really_run follows the task’s next run and ends with it (MW/plugins/zettarepl.py:396-403, 428-464)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      const heard = await listen(t, 'core.get_jobs');
      const follower =
        release === '26.0'
          ? t.call(t.admin, 'replication.run', 1, { really_run: false })
          : t.call(t.admin, 'replication.run', 1, false);
      // Nothing runs the task yet: the follower has no progress.
      await t.call(t.admin, 'core.get_jobs');
      expect(progressTexts(heard)).toEqual([]);
      await run(t, release);
      expect(await follower).toBeNull();
      const jobs = await t.call<Entry[]>(t.admin, 'core.get_jobs', [['method', '=', 'replication.run']]);
      expect(jobs.map((j) => [j.state, (j.progress as Entry).description])).toEqual([
        ['SUCCESS', `Sending 1 of 1: tank/src@${snapName(9)}`],
        ['SUCCESS', `Sending 1 of 1: tank/src@${snapName(9)}`],
      ]);
    });

    it('FINISHED and last_snapshot outlive a restart, the job does not (zettarepl_/state.py:99-113, 129-142)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'replication.create', PUSH);
      await snap(t, 9);
      t.appliance.now = () => la(9, 5);
      await run(t, release);
      const again = await t.reopen();
      const entry = await again.call<Entry>(again.admin, 'replication.get_instance', 1);
      expect(entry.state).toEqual({
        state: 'FINISHED',
        datetime: { $date: la(9, 5) },
        warnings: [],
        last_snapshot: `tank/src@${snapName(9)}`,
      });
      expect(entry.job).toBeNull();
    });
  });
}
