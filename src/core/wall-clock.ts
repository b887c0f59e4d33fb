// An instant's wall clock in the appliance's zone, as zettarepl's TzClock reads it and as a snapshot
// name's time is written: both the emulated scheduler (appliance/snapshot-tasks/schedule.ts) and
// `stor apply`'s retention preview (commands/state/snapshot-task-values.ts) read it. Pure: the
// instant and the zone are passed in.

/** One formatter per zone: making one costs more than using it many times. */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

/** The formatter that reads a wall clock in `tz`; an unknown zone is a RangeError here, before anything is computed with it. */
export function zoneFormatter(tz: string): Intl.DateTimeFormat {
  let format = FORMATTERS.get(tz);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    FORMATTERS.set(tz, format);
  }
  return format;
}

/** `wallClock` with the zone's formatter at hand (zoneFormatter). */
export function wallClockWith(format: Intl.DateTimeFormat, instant: Date): Date {
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(instant)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  return new Date(
    Date.UTC(
      part['year'] ?? 0,
      (part['month'] ?? 1) - 1,
      part['day'] ?? 1,
      part['hour'] ?? 0,
      part['minute'] ?? 0,
      part['second'] ?? 0,
      instant.getUTCMilliseconds(),
    ),
  );
}

/**
 * The local wall clock of an instant in an IANA zone, as TzClock computes it
 * (`utcnow.replace(tzinfo=UTC).astimezone(timezone)` made naive: zettarepl/scheduler/tz_clock.py:41-42,
 * 20-21, release/25.10.1), returned as a Date whose UTC fields are that wall clock.
 */
export function wallClock(instant: Date, tz: string): Date {
  return wallClockWith(zoneFormatter(tz), instant);
}

/**
 * The instant a wall clock in `tz` names, as a naive datetime given `tzinfo=tzlocal()` is read
 * (dateutil's tzlocal, the appliance's zone being the process's): the offset found at the wall clock
 * read as UTC, corrected once. In the hour a clock change skips or repeats it may be an hour off
 * dateutil's choice.
 */
export function instantOfWallClock(wall: Date, tz: string): Date {
  const format = zoneFormatter(tz);
  const offsetAt = (instant: number) => wallClockWith(format, new Date(instant)).getTime() - instant;
  const guess = wall.getTime() - offsetAt(wall.getTime());
  return new Date(wall.getTime() - offsetAt(guess));
}
