/**
 * A task whose `minute` is "": the middleware's CronModel builds `* * * * *` from it
 * (`schedule.get(field) or '*'`, MW/utils/cron.py:9-18 at TS-25.10.1) and stores it, but
 * zettarepl's CronSchedule joins the fields as they are (zettarepl/scheduler/cron.py:17-18 at
 * release/25.10.1), and croniter refuses the four columns left when should_run asks it, after the
 * `begin`–`end` window (cron.py:37-45).
 * - zettarepl's scheduler asks every task at every tick, `run`'s included (scheduler.py:34-41): in
 *   the task's window the question raises, the tick is lost with every task it would have run, and
 *   the middleware logs it and starts the loop again (MW/plugins/zettarepl.py:185-189). So `run`
 *   answers null (it only queues the task, :390-394) and nothing is taken or destroyed.
 * - Outside that window the tick goes on; its retention asks the task about each snapshot its
 *   schema names, and one inside the window raises: retention runs in its own thread and logs it,
 *   destroying nothing (zettarepl/zettarepl.py:324-334).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { SnapshotTaskScheduler } from '../../../../src/core/appliance/snapshot-tasks/scheduler.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { localPush } from '../../../helpers/replication-spec.js';

type Entry = Record<string, unknown>;
// 11:07:30 UTC is 03:07 on the appliance's clock (America/Los_Angeles, PST).
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const HOUR = 3_600_000;
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };

/** Task 1 (every minute, a one-hour lifetime) took tank/data@auto-2024-01-05_03-07; task 2 is the broken one. */
async function setup(release: '25.10.1' | '26.0', broken: Entry): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
  t.appliance.now = () => AT;
  await t.call(t.admin, 'pool.snapshottask.create', {
    dataset: 'tank/data',
    lifetime_value: 1,
    lifetime_unit: 'HOUR',
    schedule: EVERY_MINUTE,
  });
  await t.call(t.admin, 'pool.snapshottask.run', 1);
  const created = await t.call<Entry>(t.admin, 'pool.snapshottask.create', {
    dataset: 'tank/data',
    schedule: { ...EVERY_MINUTE, minute: '', ...broken },
  });
  expect((created.schedule as Entry).minute).toBe('');
  return t;
}

const snapshotIds = async (t: TestAppliance) =>
  (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [], { select: ['id'] })).map((s) => s.id);

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`a task whose minute is "" on ${release}`, () => {
    it('inside its window, loses every tick: run answers null and takes nothing, a tick runs no task, retention destroys nothing', async () => {
      const t = await setup(release, {});
      t.appliance.now = () => AT + 2 * HOUR;
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      await new SnapshotTaskScheduler(t.appliance).tick(AT + 2 * HOUR + 60_000);
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07']);
      const [task] = await t.call<Entry[]>(t.admin, 'pool.snapshottask.query', [['id', '=', 1]]);
      expect((task!.state as Entry).last_snapshot).toBe('tank/data@auto-2024-01-05_03-07');
    });

    it('outside it, lets run take its snapshot and retention destroy what expired', async () => {
      const t = await setup(release, { begin: '04:00', end: '04:30' });
      t.appliance.now = () => AT + 2 * HOUR;
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_05-07']);
    });

    it('outside it, a run’s retention that asks it about a snapshot inside it raises and destroys nothing; the run answers null and takes its snapshot', async () => {
      const t = await setup(release, { begin: '04:00', end: '04:30' });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'auto-2024-01-05_04-10' });
      t.appliance.now = () => AT + 2 * HOUR;
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      expect(await snapshotIds(t)).toEqual([
        'tank/data@auto-2024-01-05_03-07',
        'tank/data@auto-2024-01-05_04-10',
        'tank/data@auto-2024-01-05_05-07',
      ]);
    });

    it('a replication whose schedule has minute "" loses the tick too: run takes nothing (zettarepl/zettarepl.py:84-91)', async () => {
      const t = await setup(release, {});
      await t.call(t.admin, 'pool.snapshottask.delete', 2);
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/src' });
      await t.call(
        t.admin,
        'replication.create',
        localPush({
          auto: true,
          periodic_snapshot_tasks: [],
          also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
          schedule: { ...EVERY_MINUTE, minute: '' },
        }),
      );
      t.appliance.now = () => AT + 2 * HOUR;
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      expect(await snapshotIds(t)).toEqual(['tank/data@auto-2024-01-05_03-07']);
    });
  });
}
