/**
 * A task whose `minute` is "": the middleware's CronModel reads it as `*` (`schedule.get(field) or
 * '*'`, MW/utils/cron.py:9-18 at TS-25.10.1) and stores it as given; zettarepl joins the fields as
 * they are (zettarepl/scheduler/cron.py:17-18 at release/25.10.1), and croniter 1.3.5 refuses the
 * four columns left with CroniterBadCronError, but only when `should_run` asks it (cron.py:37-45):
 * for a snapshot in the task's tree whose name its schema parses to a time inside `begin`–`end`
 * (zettarepl/snapshot/task/snapshot_owner.py:25-30). A task that is never asked fails nothing.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { RpcError } from '../../../../src/core/errors.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
// 11:07:30 UTC is 03:07 on the appliance's clock (America/Los_Angeles, PST).
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };
const BAD_LENGTH = 'Exactly 5 or 6 columns has to be specified for iterator expression.';

/** Task 1 on tank/data, every minute, has taken tank/data@auto-2024-01-05_03-07. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  for (const name of ['tank/data', 'tank/other']) await t.call(t.admin, 'pool.dataset.create', { name });
  t.appliance.now = () => AT;
  await t.call(t.admin, 'pool.snapshottask.create', {
    dataset: 'tank/data',
    schedule: EVERY_MINUTE,
    lifetime_value: 1,
    lifetime_unit: 'HOUR',
  });
  await t.call(t.admin, 'pool.snapshottask.run', 1);
  return t;
}

const retentionQuery = (t: TestAppliance) =>
  t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@auto-2024-01-05_03-07']], {
    extra: { retention: true },
    select: ['id', 'retention'],
  });

async function refusal(call: Promise<unknown>): Promise<unknown> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RpcError);
  const data = (err as RpcError).data as { reason: string; trace: { class: string; repr: string } };
  return { reason: data.reason, class: data.trace.class, repr: data.trace.repr };
}

const CRONITER_REFUSAL = {
  reason: BAD_LENGTH,
  class: 'CroniterBadCronError',
  repr: `CroniterBadCronError('${BAD_LENGTH}')`,
};

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`a task whose minute is "" on ${release}`, () => {
    it('fails no retention query when none of the query’s snapshots is in its tree', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/other',
        schedule: { ...EVERY_MINUTE, minute: '' },
      });
      expect(await retentionQuery(t)).toEqual([
        {
          id: 'tank/data@auto-2024-01-05_03-07',
          retention: {
            datetime: { $date: AT - 30_000 + 3_600_000 },
            source: 'periodic_snapshot_task',
            periodic_snapshot_task_id: 1,
          },
        },
      ]);
    });

    it('fails no retention query when its schema parses none of them, nor when the name’s time is outside begin–end', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        naming_schema: 'other-%Y-%m-%d_%H-%M',
        schedule: { ...EVERY_MINUTE, minute: '' },
      });
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        schedule: { ...EVERY_MINUTE, minute: '', begin: '10:00', end: '11:00' },
      });
      expect(await retentionQuery(t)).toHaveLength(1);
    });

    it('fails a retention query over a snapshot it is asked about with croniter’s CroniterBadCronError', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        schedule: { ...EVERY_MINUTE, minute: '' },
      });
      expect(await refusal(retentionQuery(t))).toEqual(CRONITER_REFUSAL);
    });

    it('answers its retention change when it has no snapshot to ask about, and CroniterBadCronError when it has', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/other',
        schedule: { ...EVERY_MINUTE, minute: '' },
      });
      expect(await t.call(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 2)).toEqual({});
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/other', name: 'auto-2024-01-05_03-07' });
      expect(await refusal(t.call(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 2))).toEqual(
        CRONITER_REFUSAL,
      );
    });
  });
}
