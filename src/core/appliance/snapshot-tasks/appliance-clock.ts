import {
  snapshotName,
  strftimeNaming,
  tryParseSnapshotName,
  type NamingTime,
} from '../../contract/snapshot-naming-schema.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import type { ParseSnapshotName } from './retention.js';
import { wallClock } from '../../wall-clock.js';

// The appliance's clock as zettarepl reads it: an instant seen in the appliance's zone (TzClock,
// zettarepl/scheduler/tz_clock.py:41-42 at release/25.10.1, given system.general's `timezone`:
// MW/plugins/zettarepl.py:614, 648), and a snapshot name read back as the wall clock it was written at.

/**
 * The aware local time zettarepl names a snapshot with (`offset_aware_datetime`,
 * zettarepl/zettarepl.py:112, 126): the wall clock in the appliance's zone and its offset.
 */
function applianceNamingTime(at: number): NamingTime {
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
 * `%s` stands alone in a schema (name.py:118-120) and is the instant's epoch seconds: glibc's
 * `mktime` of the local wall clock, the zone being the appliance's on the appliance. The contract's
 * strftime reads a wall clock in this process's zone, so the seconds are written here.
 */
const withEpoch = (schema: string, at: number) => schema.replace(/%s/g, String(Math.floor(at / 1000)));

/** `get_snapshot_name(now, schema)` at `at` (name.py:21-22), as zettarepl names a task's snapshot. */
export function applianceSnapshotName(schema: string, at: number): string {
  return snapshotName(withEpoch(schema, at), applianceNamingTime(at));
}

/** `datetime.now().strftime(schema)` at `at`, naive (`replication.new_snapshot_name`, MW/plugins/replication.py:631-632). */
export function applianceStrftime(schema: string, at: number): string {
  return strftimeNaming(withEpoch(schema, at), { ...applianceNamingTime(at), offsetMinutes: null });
}

/**
 * `parse_snapshot_name(...).datetime` (zettarepl/snapshot/name.py:25-53): the naive time the name
 * holds, as retention.ts wants it (UTC fields), or undefined where it raises ValueError.
 */
export const parseTaskSnapshotName: ParseSnapshotName = (schema, name) => {
  const parsed = tryParseSnapshotName(name, schema);
  if (parsed === null) return undefined;
  if (schema.includes('%s')) {
    // `datetime.fromtimestamp`: the seconds as the appliance's wall clock (name.py:33). The
    // contract's parser gave this process's wall clock; its Date is the instant again.
    const t = parsed.time;
    const instant = new Date(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
    return wallClock(instant, APPLIANCE_TIMEZONE);
  }
  const { year, month, day, hour, minute, second } = parsed.time;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (year < 100) date.setUTCFullYear(year);
  return date;
};
