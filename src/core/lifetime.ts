// How long a periodic snapshot task (or a replication's CUSTOM target retention) keeps a snapshot.
// The middleware hands zettarepl a fixed duration: MONTH is 30 days and YEAR 365, not calendar
// months or years (MW/plugins/zettarepl.py:64-80 lifetime_timedelta, :83-88 as ISO 8601 seconds
// "PT…S"; zettarepl parses it with isodate.parse_duration, zettarepl/snapshot/task/task.py:40-41
// (release/25.10.1)).

export type LifetimeUnit = 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

/** `lifetime_value` and `lifetime_unit` of pool.snapshottask (and of replication's CUSTOM policy). */
export interface Lifetime {
  readonly value: number;
  readonly unit: LifetimeUnit;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The lifetime in milliseconds, as MW/plugins/zettarepl.py:64-80 computes it. */
export function lifetimeMs(lifetime: Lifetime): number {
  switch (lifetime.unit) {
    case 'HOUR':
      return lifetime.value * HOUR_MS;
    case 'DAY':
      return lifetime.value * DAY_MS;
    case 'WEEK':
      return lifetime.value * 7 * DAY_MS;
    case 'MONTH':
      return lifetime.value * 30 * DAY_MS;
    case 'YEAR':
      return lifetime.value * 365 * DAY_MS;
  }
}
