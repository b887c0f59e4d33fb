import { tryParseSnapshotName, type NamingTime } from '../../contract/snapshot-naming-schema.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import type { ParseSnapshotName } from './retention.js';
import { wallClock } from './schedule.js';

// The appliance's clock as zettarepl reads it: an instant seen in the appliance's zone (TzClock,
// zettarepl/scheduler/tz_clock.py:41-42 at release/25.10.1, given system.general's `timezone`:
// MW/plugins/zettarepl.py:614, 648), and a snapshot name read back as the wall clock it was written at.

/**
 * The aware local time zettarepl names a snapshot with (`offset_aware_datetime`,
 * zettarepl/zettarepl.py:112, 126): the wall clock in the appliance's zone and its offset.
 */
export function applianceNamingTime(at: number): NamingTime {
  const wall = wallClock(new Date(at), APPLIANCE_TIMEZONE);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    offsetMinutes: Math.round((wall.getTime() - at) / 60_000),
  };
}

/**
 * `parse_snapshot_name(...).datetime` (zettarepl/snapshot/name.py:25-53): the naive time the name
 * holds, as retention.ts wants it (UTC fields), or undefined where it raises ValueError.
 */
export const parseTaskSnapshotName: ParseSnapshotName = (schema, name) => {
  const parsed = tryParseSnapshotName(name, schema);
  if (parsed === null) return undefined;
  const { year, month, day, hour, minute, second } = parsed.time;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (year < 100) date.setUTCFullYear(year);
  return date;
};
