/**
 * A snapshot task's values in desired state (src/commands/state/snapshot-task-values.ts): the
 * lifetime and schedule between the file's terms and the appliance's, and which of a task's
 * snapshots a shorter lifetime lets retention destroy (docs/STATE.md "Snapshot tasks").
 */
import { describe, expect, it } from 'vitest';
import {
  lifetimeOf,
  lifetimeText,
  scheduleOf,
  shortenedAway,
} from '../../../src/commands/state/snapshot-task-values.js';

const DAY = 86_400_000;
// 2026-06-15 12:00 UTC; the zone UTC, so a name's wall clock is the instant.
const NOW = Date.UTC(2026, 5, 15, 12, 0);
const name = (daysAgo: number) => {
  const d = new Date(NOW - daysAgo * DAY);
  const p = (n: number) => String(n).padStart(2, '0');
  return `tank/a@auto-${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}_${p(d.getUTCHours())}-${p(d.getUTCMinutes())}`;
};

describe('snapshot task values', () => {
  it('reads a lifetime as 12h, 30d, 2w, 6m (months), 1y or {value, unit}, and writes it back as it reads', () => {
    expect(['12h', '30d', '2w', '6m', '1Y'].map((l) => lifetimeOf(l))).toEqual([
      { value: 12, unit: 'HOUR' },
      { value: 30, unit: 'DAY' },
      { value: 2, unit: 'WEEK' },
      { value: 6, unit: 'MONTH' },
      { value: 1, unit: 'YEAR' },
    ]);
    expect(lifetimeText(lifetimeOf({ value: 3, unit: 'MONTH' }))).toBe('3m');
  });

  it('lays a five-field schedule over the window the task has, and stores a window as the appliance does (HH:MM)', () => {
    const base = { minute: '00', hour: '*', dom: '*', month: '*', dow: '*', begin: '08:00', end: '18:00' };
    expect(scheduleOf('0 9 * * mon', base)).toEqual({ ...base, minute: '0', hour: '9', dow: 'mon' });
    expect(scheduleOf({ begin: '7:5' }, base)).toEqual({ ...base, begin: '07:05' });
  });

  it('a shorter lifetime lets go the snapshots older than it that the old one kept, never the newest of a dataset; a longer one none', () => {
    const own = [name(40), name(20), name(10), name(2), name(1), 'tank/a@manual-1'];
    const week = { value: 1, unit: 'WEEK' } as const;
    const month = { value: 1, unit: 'MONTH' } as const;
    // 40 days old was past the month already: retention destroys it either way.
    expect(shortenedAway(own, 'auto-%Y-%m-%d_%H-%M', month, week, NOW, 'UTC')).toEqual([name(20), name(10)]);
    expect(shortenedAway(own, 'auto-%Y-%m-%d_%H-%M', week, month, NOW, 'UTC')).toEqual([]);
    // Only the newest: kept.
    expect(shortenedAway([name(30)], 'auto-%Y-%m-%d_%H-%M', month, { value: 1, unit: 'DAY' }, NOW, 'UTC')).toEqual([]);
  });

  it("judges a name's time as the appliance's wall clock in its zone", () => {
    // 12:00 UTC is 05:00 in Los Angeles (summer): a snapshot named 04:00 that day is an hour old there.
    const oneHour = 'tank/a@auto-2026-06-15_04-00';
    const newest = 'tank/a@auto-2026-06-15_04-59';
    const hours = (value: number) => ({ value, unit: 'HOUR' }) as const;
    const away = (tz: string) => shortenedAway([oneHour, newest], 'auto-%Y-%m-%d_%H-%M', hours(24), hours(1), NOW, tz);
    expect(away('America/Los_Angeles')).toEqual([oneHour]);
    expect(away('UTC')).toEqual([oneHour]);
    expect(
      shortenedAway([oneHour, newest], 'auto-%Y-%m-%d_%H-%M', hours(24), hours(2), NOW, 'America/Los_Angeles'),
    ).toEqual([]);
  });
});
