/**
 * The periodic snapshot task scheduler of the emulator, driven tick by tick with simulated minutes
 * (no test waits for a real one). What it follows (zettarepl at release/25.10.1, MW at TS-25.10.1):
 * - one tick a UTC minute, matched in the appliance's zone: zettarepl/scheduler/scheduler.py:26-43,
 *   clock.py:36-57 (a minute seen once; missed minutes are not caught up), tz_clock.py:41-42;
 * - the run: zettarepl/zettarepl.py:123-192 (names from the local time, one snapshot for two tasks
 *   that name it alike), then local retention, zettarepl.py:105-119, 310-322, 355-436;
 * - a held snapshot stays (zettarepl/snapshot/destroy.py:53-61), a manual one has no owner
 *   (zettarepl/retention/calculate.py:27-87).
 * The appliance's zone is America/Los_Angeles (system.info's `timezone`): in January, UTC-8.
 */
import { describe, expect, it } from 'vitest';
import { SnapshotTaskScheduler } from '../../../../src/core/appliance/snapshot-tasks/scheduler.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { deleteDatasets } from '../../../../src/core/store/datasets.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;

/** The instant at which the appliance's wall clock reads 2024-01-05 HH:MM (UTC-8 in January). */
const la = (hour: number, minute = 0) => Date.UTC(2024, 0, 5, hour + 8, minute, 0);

async function setup(datasets = ['tank/data']): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' });
  for (const name of datasets) await t.call(t.admin, 'pool.dataset.create', { name });
  return t;
}

const create = (t: TestAppliance, data: Entry) => t.call<Entry>(t.admin, 'pool.snapshottask.create', data);
const snapshotNames = async (t: TestAppliance, dataset = 'tank/data') =>
  (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', dataset]], { select: ['snapshot_name'] }))
    .map((s) => s.snapshot_name as string)
    .sort();
const stateOf = async (t: TestAppliance, id: number) =>
  (await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', id)).state as Entry;

/** Ticks at each instant, as the server's minute timer would, on one scheduler. */
async function ticks(scheduler: SnapshotTaskScheduler, at: readonly number[]): Promise<void> {
  for (const now of at) await scheduler.tick(now);
}

const HOURLY = { minute: '0', hour: '*', dom: '*', month: '*', dow: '*' };
/** An hourly task on tank/data named `auto-YYYY-MM-DD_HH-MM`. */
const TASK = { dataset: 'tank/data', naming_schema: 'auto-%Y-%m-%d_%H-%M', schedule: HOURLY };

describe('the periodic snapshot task scheduler', () => {
  it('takes an hourly task’s snapshot at each due minute within begin–end, in the appliance’s zone, and nothing between', async () => {
    const t = await setup();
    await create(t, {
      dataset: 'tank/data',
      naming_schema: 'auto-%Y-%m-%d_%H-%M',
      lifetime_value: 1,
      lifetime_unit: 'WEEK',
      schedule: { ...HOURLY, begin: '09:00', end: '11:00' },
    });
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(8), la(8, 1), la(9), la(9, 30), la(10), la(11), la(12)]);
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_09-00', 'auto-2024-01-05_10-00', 'auto-2024-01-05_11-00']);
    expect(await stateOf(t, 1)).toMatchObject({ state: 'FINISHED', last_snapshot: 'tank/data@auto-2024-01-05_11-00' });
  });

  it('a second tick in the same minute does nothing (the task is not refused "already exists")', async () => {
    const t = await setup();
    await create(t, TASK);
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10), la(10) + 20_000, la(10) + 59_999]);
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00']);
    expect(await stateOf(t, 1)).toMatchObject({ state: 'FINISHED' });
  });

  it('minutes missed while the server was down are not caught up: only what is due at the tick runs (clock.py:36-57)', async () => {
    const t = await setup();
    await create(t, TASK);
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10), la(12, 30), la(13)]);
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00', 'auto-2024-01-05_13-00']);
  });

  it('a clock stepped back runs nothing at that tick, then runs the minutes it reaches again, as zettarepl’s clock follows it (clock.py:36-57)', async () => {
    const t = await setup();
    await create(t, TASK);
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10), la(9, 59), la(9, 59) + 30_000]);
    expect(await stateOf(t, 1)).toMatchObject({ state: 'FINISHED' });
    // 10:00 comes round again: the snapshot exists, and zfs's refusal is the task's state.
    await ticks(scheduler, [la(10)]);
    expect(await stateOf(t, 1)).toMatchObject({
      state: 'ERROR',
      error: "cannot create snapshot 'tank/data@auto-2024-01-05_10-00': dataset already exists.",
    });
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00']);
  });

  it('retention destroys the task’s snapshots at the lifetime’s end; a held one and a manual one stay', async () => {
    const t = await setup();
    await create(t, { ...TASK, lifetime_value: 2, lifetime_unit: 'HOUR' });
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(9), la(10), la(11)]);
    // 09:00 is exactly two hours old at 11:00: kept only while younger (snapshot_owner.py:35-37).
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00', 'auto-2024-01-05_11-00']);
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/data@auto-2024-01-05_10-00');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'manual-keep' });
    await ticks(scheduler, [la(12), la(13), la(14)]);
    expect(await snapshotNames(t)).toEqual([
      'auto-2024-01-05_10-00',
      'auto-2024-01-05_13-00',
      'auto-2024-01-05_14-00',
      'manual-keep',
    ]);
  });

  it('two tasks on one dataset take one snapshot a minute and keep it as long as the longer lifetime owns it', async () => {
    const t = await setup();
    await create(t, { ...TASK, lifetime_value: 1, lifetime_unit: 'HOUR' });
    await create(t, { ...TASK, lifetime_value: 3, lifetime_unit: 'HOUR' });
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10), la(11), la(12)]);
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00', 'auto-2024-01-05_11-00', 'auto-2024-01-05_12-00']);
    for (const id of [1, 2]) expect(await stateOf(t, id)).toMatchObject({ state: 'FINISHED' });
    await ticks(scheduler, [la(13)]);
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_11-00', 'auto-2024-01-05_12-00', 'auto-2024-01-05_13-00']);
  });

  it('a task whose dataset went away meanwhile reports zfs’s error in its state; the other tasks still run', async () => {
    const t = await setup(['tank/data', 'tank/gone']);
    await create(t, { ...TASK, dataset: 'tank/gone' });
    await create(t, TASK);
    // Gone as a `zfs destroy` from a shell leaves it: the task is not deleted with it.
    t.appliance.store.write(() => deleteDatasets(t.appliance.store.db, ['tank/gone']));
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10), la(11)]);
    // libzfs zfs_snapshot_nvl: "cannot create snapshot '…'" with ENOENT's "dataset does not exist".
    expect(await stateOf(t, 1)).toMatchObject({
      state: 'ERROR',
      error: "cannot create snapshot 'tank/gone@auto-2024-01-05_11-00': dataset does not exist.",
    });
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00', 'auto-2024-01-05_11-00']);
  });

  it('pool.snapshot.create names by the schema at the appliance’s clock in its zone, so a snapshot so named at a due minute is the task’s and expires with it (MW/plugins/replication.py:631-632)', async () => {
    const t = await setup();
    await create(t, { ...TASK, lifetime_value: 1, lifetime_unit: 'HOUR' });
    t.appliance.now = () => la(9, 0) + 12_000;
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', naming_schema: 'auto-%Y-%m-%d_%H-%M' });
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_09-00']);
    await new SnapshotTaskScheduler(t.appliance).tick(la(10));
    expect(await snapshotNames(t)).toEqual(['auto-2024-01-05_10-00']);
  });

  it('a %s schema names the tick’s epoch seconds, read back in the appliance’s zone for the schedule and window (zettarepl/snapshot/name.py:21-33)', async () => {
    const t = await setup();
    await create(t, {
      dataset: 'tank/data',
      naming_schema: 'snap-%s',
      lifetime_value: 1,
      lifetime_unit: 'HOUR',
      schedule: { ...HOURLY, begin: '09:00', end: '11:00' },
    });
    const scheduler = new SnapshotTaskScheduler(t.appliance);
    await ticks(scheduler, [la(10)]);
    expect(await snapshotNames(t)).toEqual([`snap-${la(10) / 1000}`]);
    // At 11:00 the 10:00 snapshot is an hour old: the task's (10:00 is within its window), so it goes.
    await ticks(scheduler, [la(11)]);
    expect(await snapshotNames(t)).toEqual([`snap-${la(11) / 1000}`]);
  });

  it('a disabled task is not run', async () => {
    const t = await setup();
    await create(t, { ...TASK, enabled: false });
    await new SnapshotTaskScheduler(t.appliance).tick(la(10));
    expect(await snapshotNames(t)).toEqual([]);
  });
});
