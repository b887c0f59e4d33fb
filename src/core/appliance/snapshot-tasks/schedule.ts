// A periodic snapshot task's schedule as zettarepl reads it. zettarepl's scheduler ticks once a UTC
// minute, turns the tick into the appliance's local wall clock (TzClock, the zone being
// system.general's `timezone`: MW/plugins/zettarepl.py:614,648 (TS-25.10.1);
// zettarepl/scheduler/tz_clock.py:41-42 (release/25.10.1)) and runs every task whose
// CronSchedule.should_run says yes for that wall clock with its seconds dropped
// (zettarepl/scheduler/scheduler.py:26-43, zettarepl/scheduler/cron.py:37-45,
// zettarepl/utils/datetime.py:10-11). should_run is croniter's: a minute is due when croniter's next
// match after the second before it is that minute — which is croniter's field matching, written here
// as a predicate. Pure: the time and the zone are passed in.

import {
  CRON_FIELDS,
  CronExpressionError,
  expandCron,
  type CronExpansion,
  type CronField,
  type NthWeekdays,
} from '../../contract/cron.js';
import { wallClock, wallClockWith, zoneFormatter } from '../../wall-clock.js';

/** A schedule as the middleware stores it (`schedule` of pool.snapshottask; MW/api/v25_10_1/common.py CronModel, TimeCronModel). */
export interface Schedule {
  readonly minute?: string;
  readonly hour?: string;
  readonly dom?: string;
  readonly month?: string;
  readonly dow?: string;
  /** "HH:MM": the window a periodic snapshot task may run in (begin after end: the window wraps midnight). */
  readonly begin?: string;
  readonly end?: string;
}

/** A schedule compiled once, for matching many times. */
export interface CompiledSchedule {
  readonly minute: CronField;
  readonly hour: CronField;
  readonly dom: CronField;
  readonly month: CronField;
  readonly dow: CronField;
  /** Day of week `N#k` (the k-th N of the month) and `LN` (its last N), croniter's nth_weekday_of_month. */
  readonly nth: NthWeekdays | undefined;
  /** Seconds of the day. */
  readonly begin: number;
  readonly end: number;
}

/** A schedule zettarepl cannot read: croniter's refusal of its expression, or a `begin`/`end` that is not a time. */
export class ScheduleError extends Error {}

/**
 * croniter's refusal of an expression, under the class croniter 1.3.5 raises (its _expand's
 * CroniterBadCronError; the class names what a caller of the middleware reads in the error's
 * trace). The middleware's CronModel refuses every such schedule on create but one: a field given
 * as "", which CronModel reads as `*` (MW/utils/cron.py:12 at TS-25.10.1) and stores, and which
 * zettarepl's expression leaves out (zettarepl/scheduler/cron.py:18 at release/25.10.1), leaving
 * croniter four columns: `Exactly 5 or 6 columns has to be specified for iterator expression.`
 */
export class CroniterBadCronError extends ScheduleError {}

/** isodate.parse_time of "HH:MM" or "HH:MM:SS", in seconds of the day (cron.py:31-35). */
function timeOfDay(text: string, what: string): number {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  const seconds = m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0) : NaN;
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) {
    throw new ScheduleError(`${what} ${JSON.stringify(text)} is not a time HH:MM`);
  }
  return seconds;
}

/**
 * The schedule as croniter expands it, missing fields being `*` and the window 00:00–23:59
 * (zettarepl/scheduler/cron.py:26-35). Throws ScheduleError where croniter would refuse it.
 */
export function compileSchedule(schedule: Schedule): CompiledSchedule {
  // zettarepl's expression: the fields joined by a space (cron.py:18), expanded by croniter 1.3.5 as
  // the middleware's CronModel expands its own (a sixth field, seconds, from a field holding a
  // space, is not matched here).
  const expr = CRON_FIELDS.map((name) => schedule[name] ?? '*').join(' ');
  let expansion: CronExpansion;
  try {
    expansion = expandCron(expr);
  } catch (err) {
    throw err instanceof CronExpressionError ? new CroniterBadCronError(err.message) : err;
  }
  const [minute, hour, dom, month, dow] = expansion.fields as [CronField, CronField, CronField, CronField, CronField];
  return {
    minute,
    hour,
    dom,
    month,
    dow,
    nth: expansion.nth.size > 0 ? expansion.nth : undefined,
    begin: timeOfDay(schedule.begin ?? '00:00', 'begin'),
    end: timeOfDay(schedule.end ?? '23:59', 'end'),
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function has(field: CronField, value: number): boolean {
  return field.all || field.values.has(value);
}

function dayMatches(c: CompiledSchedule, wall: Date): boolean {
  const year = wall.getUTCFullYear();
  const month = wall.getUTCMonth() + 1;
  if (!has(c.month, month)) return false;
  const day = wall.getUTCDate();
  const weekday = wall.getUTCDay();
  const domOk = c.dom.all || c.dom.values.has(day) || (c.dom.last && day === daysInMonth(year, month));
  let dowOk: boolean;
  if (c.nth) {
    const wanted = c.nth.get(weekday);
    dowOk =
      wanted !== undefined &&
      (wanted.has(Math.ceil(day / 7)) || (wanted.has('l') && day + 7 > daysInMonth(year, month)));
  } else dowOk = has(c.dow, weekday);
  // croniter's day_or: with both day fields restricted, a day matching either runs (as cron does).
  const domRestricted = !c.dom.all;
  const dowRestricted = !c.dow.all || c.nth !== undefined;
  return domRestricted && dowRestricted ? domOk || dowOk : domOk && dowOk;
}

function inWindow(c: Pick<CompiledSchedule, 'begin' | 'end'>, seconds: number): boolean {
  // cron.py:39-44: begin before end is a window within the day; otherwise it wraps midnight (and
  // begin equal to end is the whole day).
  return c.begin < c.end ? c.begin <= seconds && seconds <= c.end : seconds >= c.begin || seconds <= c.end;
}

/** Seconds of the day of a wall clock, its seconds dropped (cron.py:38, idealized_datetime). */
const secondsOfDay = (wall: Date) => wall.getUTCHours() * 3600 + wall.getUTCMinutes() * 60;

/**
 * Whether zettarepl runs the task at this wall-clock time: a Date whose UTC fields are the
 * local wall clock (zettarepl's naive datetime); seconds are dropped first (cron.py:38).
 */
export function isDueAtWallClock(c: CompiledSchedule, wall: Date): boolean {
  return (
    inWindow(c, secondsOfDay(wall)) &&
    has(c.minute, wall.getUTCMinutes()) &&
    has(c.hour, wall.getUTCHours()) &&
    dayMatches(c, wall)
  );
}

/**
 * `CronSchedule.should_run` as zettarepl asks it of one task's snapshots (cron.py:37-45): the
 * `begin`–`end` window first, read when the task is (cron.py:31-35), then croniter, built at each
 * call. So a schedule croniter refuses raises CroniterBadCronError only when it is asked about a
 * time inside its window, and a task never asked fails nothing.
 */
export function shouldRunAt(schedule: Schedule): (wall: Date) => boolean {
  const window = {
    begin: timeOfDay(schedule.begin ?? '00:00', 'begin'),
    end: timeOfDay(schedule.end ?? '23:59', 'end'),
  };
  let compiled: CompiledSchedule | undefined;
  return (wall) => {
    if (!inWindow(window, secondsOfDay(wall))) return false;
    compiled ??= compileSchedule(schedule);
    return isDueAtWallClock(compiled, wall);
  };
}

/** Whether zettarepl's scheduler runs the task on the tick at this instant, the appliance's zone being `tz`. */
export function isDue(schedule: Schedule, date: Date, tz: string): boolean {
  return isDueAtWallClock(compileSchedule(schedule), wallClock(date, tz));
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** croniter gives up on a next match this many years on (max_years_between_matches). */
const SEARCH_YEARS = 50;

/** Every instant whose wall clock in the zone is `wall`: none in a gap a clock skips, two in an hour it repeats. */
function instantsAt(format: Intl.DateTimeFormat, wall: Date): Date[] {
  const found = new Map<number, Date>();
  for (const probe of [wall.getTime() - DAY, wall.getTime() + DAY]) {
    const offset = wallClockWith(format, new Date(probe)).getTime() - probe;
    const instant = new Date(wall.getTime() - offset);
    if (wallClockWith(format, instant).getTime() === wall.getTime()) found.set(instant.getTime(), instant);
  }
  return [...found.values()];
}

/**
 * The first minute after `after` at which zettarepl's scheduler runs the task, or undefined when
 * none comes within 50 years. zettarepl's scheduler ticks on UTC minutes and matches their local
 * wall clock, so an hour the clock skips in spring runs nothing and an hour it repeats in autumn
 * runs twice (the second snapshot of the same name fails "already exists", and zettarepl counts it
 * a success: zettarepl/zettarepl.py:178-182, tz_clock.py:23-39). For a schedule no date satisfies
 * (`dom: '30', month: '2'`), zettarepl's should_run asks croniter for the next match, and croniter
 * searches 50 years and raises CroniterBadDateError, which should_run does not catch (cron.py:45);
 * the task never runs. Here: undefined, after the same bounded search, day by day.
 */
export function nextRun(schedule: Schedule, after: Date, tz: string): Date | undefined {
  const c = compileSchedule(schedule);
  const format = zoneFormatter(tz);
  const startWall = wallClockWith(format, after);
  // The day before too: a wall clock repeated after midnight may still lie ahead.
  let day = Date.UTC(startWall.getUTCFullYear(), startWall.getUTCMonth(), startWall.getUTCDate()) - DAY;
  const minutes = c.minute.all ? range(60) : [...c.minute.values].sort((a, b) => a - b);
  const hours = c.hour.all ? range(24) : [...c.hour.values].sort((a, b) => a - b);
  let found: Date | undefined;
  for (let i = 0; i <= SEARCH_YEARS * 366 + 1; i++, day += DAY) {
    // A clock set back across midnight repeats the end of a day after the next one has begun, so
    // the day after the first day with a run is looked at too before answering.
    const foundBefore = found !== undefined;
    const first = firstOnDay(c, format, day, hours, minutes, after);
    if (first && (found === undefined || first < found)) found = first;
    if (foundBefore) return found;
  }
  return found;
}

function firstOnDay(
  c: CompiledSchedule,
  format: Intl.DateTimeFormat,
  day: number,
  hours: readonly number[],
  minutes: readonly number[],
  after: Date,
): Date | undefined {
  if (!dayMatches(c, new Date(day))) return undefined;
  let first: Date | undefined;
  for (const h of hours) {
    for (const m of minutes) {
      if (!inWindow(c, h * 3600 + m * 60)) continue;
      for (const instant of instantsAt(format, new Date(day + h * 3_600_000 + m * MINUTE))) {
        if (instant.getTime() > after.getTime() && (first === undefined || instant < first)) first = instant;
      }
    }
  }
  return first;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
