/**
 * `stor serve` ticks the periodic snapshot task scheduler once a minute from a timer it starts with
 * the server and stops on close. The timer is injected here (ServerOptions.minuteTimer), so the test
 * fires a minute itself, at a clock it sets, and waits for no real one.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { startServer, type MinuteTimer } from '../../../src/core/server/server.js';
import { openTestAppliance } from '../../helpers/appliance.js';

/** 2024-01-05 10:00 on the appliance's clock (America/Los_Angeles, UTC-8 in January). */
const TEN = Date.UTC(2024, 0, 5, 18, 0, 5);

describe('the server’s snapshot task timer', () => {
  it('each minute the timer fires runs the due tasks at the appliance’s clock; close stops the timer', async () => {
    const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
    await t.call(t.admin, 'pool.snapshottask.create', {
      dataset: 'tank/data',
      naming_schema: 'auto-%Y-%m-%d_%H-%M',
      schedule: { minute: '0', hour: '*', dom: '*', month: '*', dow: '*' },
    });
    let fire: (() => Promise<void>) | undefined;
    let stopped = false;
    const minuteTimer: MinuteTimer = (onMinute) => {
      fire = onMinute;
      return { stop: () => (stopped = true) };
    };
    const server = await startServer({ appliance: t.appliance, host: '127.0.0.1', port: 0, minuteTimer });
    t.appliance.now = () => TEN;
    await fire!();
    const names = await t.call<{ snapshot_name: string }[]>(t.admin, 'pool.snapshot.query', [], {
      select: ['snapshot_name'],
    });
    expect(names.map((s) => s.snapshot_name)).toEqual(['auto-2024-01-05_10-00']);
    expect(stopped).toBe(false);
    await server.close(100);
    expect(stopped).toBe(true);
  });
});
