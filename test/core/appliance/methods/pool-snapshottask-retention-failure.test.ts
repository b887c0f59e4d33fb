/**
 * A run whose retention fails still answers null, as the middleware's does: `run` only queues the
 * task for zettarepl (MW/plugins/zettarepl.py:390-394) and zettarepl's retention runs in its own
 * thread, logging what it raises and destroying nothing (zettarepl/zettarepl.py:324-334 at
 * release/25.10.1). A minute of "" is one such failure: the middleware's CronModel builds
 * `* * * * *` from it (`schedule.get(field) or '*'`, MW/utils/cron.py:9-18) and stores it, but
 * zettarepl's CronSchedule joins the fields as they are (zettarepl/scheduler/cron.py:17-18), and
 * croniter refuses the four columns left (cron.py:45).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`pool.snapshottask.run on ${release}`, () => {
    it('answers null and takes its snapshot when another task’s schedule makes retention fail; retention destroys nothing', async () => {
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
      const broken = await t.call<Entry>(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        naming_schema: 'other-%Y-%m-%d_%H-%M',
        schedule: { ...EVERY_MINUTE, minute: '' },
      });
      expect((broken.schedule as Entry).minute).toBe('');
      t.appliance.now = () => AT + 2 * 3_600_000;
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      const ids = (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [], { select: ['id'] })).map((s) => s.id);
      // The expired 03:07 snapshot stays: retention raised before destroying anything.
      expect(ids).toEqual(['tank/data@auto-2024-01-05_03-07', 'tank/data@auto-2024-01-05_05-07']);
    });
  });
}
