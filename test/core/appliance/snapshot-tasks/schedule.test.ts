import { describe, expect, it } from 'vitest';
import {
  compileSchedule,
  isDue,
  isDueAtWallClock,
  nextRun,
  ScheduleError,
  type Schedule,
} from '../../../../src/core/appliance/snapshot-tasks/schedule.js';

/** A naive wall-clock time, as zettarepl's datetimes: the UTC fields are the local ones. */
function wall(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
}

function dueAt(schedule: Schedule, at: Date): boolean {
  return isDueAtWallClock(compileSchedule(schedule), at);
}

describe('the begin/end window (zettarepl tests/scheduler/test_cron.py:9-17)', () => {
  const at = wall(2018, 8, 31, 16, 0, 5, 54);
  it.each([
    ['00:00', '23:59', at, true],
    ['09:00', '15:00', at, false],
    ['15:00', '09:00', at, true],
    ['15:00', '09:00', wall(2018, 8, 31, 8, 0, 5, 54), true],
    ['15:00', '09:00', wall(2018, 8, 31, 12, 0, 5, 54), false],
  ])('minute 0, window %s–%s', (begin, end, date, result) => {
    expect(dueAt({ minute: '0', begin, end }, date)).toBe(result);
  });

  it('a window that wraps midnight runs late evening and early morning, not midday (cron.py:42-44)', () => {
    const s = { minute: '0', begin: '22:00', end: '02:00' };
    expect(dueAt(s, wall(2026, 1, 5, 23))).toBe(true);
    expect(dueAt(s, wall(2026, 1, 5, 0))).toBe(true);
    expect(dueAt(s, wall(2026, 1, 5, 2))).toBe(true);
    expect(dueAt(s, wall(2026, 1, 5, 3))).toBe(false);
    expect(dueAt(s, wall(2026, 1, 5, 12))).toBe(false);
  });

  it('begin equal to end is the whole day, as cron.py:43 reads it (not begin < end)', () => {
    expect(dueAt({ minute: '0', begin: '10:00', end: '10:00' }, wall(2026, 1, 5, 16))).toBe(true);
  });

  it('the window bounds are inclusive (cron.py:40)', () => {
    const s = { minute: '*', begin: '09:00', end: '15:00' };
    expect(dueAt(s, wall(2026, 1, 5, 9, 0))).toBe(true);
    expect(dueAt(s, wall(2026, 1, 5, 15, 0))).toBe(true);
    expect(dueAt(s, wall(2026, 1, 5, 15, 1))).toBe(false);
    expect(dueAt(s, wall(2026, 1, 5, 8, 59))).toBe(false);
  });

  it('seconds are dropped before matching (idealized_datetime, cron.py:38)', () => {
    expect(dueAt({ minute: '0', hour: '16' }, wall(2018, 8, 31, 16, 0, 59, 999))).toBe(true);
  });
});

describe("croniter's fields", () => {
  it('a missing field is *: every minute runs (cron.py:26-32)', () => {
    expect(dueAt({}, wall(2026, 7, 4, 13, 37))).toBe(true);
  });

  it('*/15 runs at 0, 15, 30, 45', () => {
    const minutes = Array.from({ length: 60 }, (_, m) => m).filter((m) =>
      dueAt({ minute: '*/15' }, wall(2026, 1, 1, 0, m)),
    );
    expect(minutes).toEqual([0, 15, 30, 45]);
  });

  it('a range with a step, a start with a step, and a list', () => {
    const hours = (hour: string) =>
      Array.from({ length: 24 }, (_, h) => h).filter((h) => dueAt({ minute: '0', hour }, wall(2026, 1, 1, h)));
    expect(hours('1-10/3')).toEqual([1, 4, 7, 10]);
    expect(hours('10/5')).toEqual([10, 15, 20]);
    expect(hours('1,3,22')).toEqual([1, 3, 22]);
  });

  it('month and day names, in any case; Sunday is 0 and 7', () => {
    // 2026-01-05 is a Monday, 2026-01-04 a Sunday.
    expect(dueAt({ dow: 'MON-fri' }, wall(2026, 1, 5))).toBe(true);
    expect(dueAt({ dow: 'mon-fri' }, wall(2026, 1, 4))).toBe(false);
    expect(dueAt({ dow: '7' }, wall(2026, 1, 4))).toBe(true);
    expect(dueAt({ dow: '0' }, wall(2026, 1, 4))).toBe(true);
    expect(dueAt({ dow: 'fri-sun' }, wall(2026, 1, 4))).toBe(true);
    expect(dueAt({ month: 'jan,jul' }, wall(2026, 7, 1))).toBe(true);
    expect(dueAt({ month: 'jan,jul' }, wall(2026, 8, 1))).toBe(false);
  });

  it('day of month and day of week both restricted: either runs (croniter day_or)', () => {
    const s = { minute: '0', hour: '0', dom: '1', dow: 'mon' };
    expect(dueAt(s, wall(2026, 1, 1))).toBe(true); // a Thursday, the 1st
    expect(dueAt(s, wall(2026, 1, 5))).toBe(true); // a Monday
    expect(dueAt(s, wall(2026, 1, 6))).toBe(false);
  });

  it('with one day field *, the other alone decides', () => {
    expect(dueAt({ dom: '*', dow: 'mon' }, wall(2026, 1, 1))).toBe(false);
    expect(dueAt({ dom: '1', dow: '*' }, wall(2026, 1, 5))).toBe(false);
  });

  it('a day of month naming all 31 days with L is *: day of week alone decides (LEN_MEANS_ALL counts L)', () => {
    const s = { minute: '0', hour: '0', dom: '1-30,L', dow: 'mon' };
    expect(dueAt(s, wall(2026, 1, 1))).toBe(false); // a Thursday
    expect(dueAt(s, wall(2026, 1, 5))).toBe(true); // a Monday
  });

  it('L is the last day of the month; N#k the k-th weekday; LN the last one', () => {
    expect(dueAt({ dom: 'L' }, wall(2028, 2, 29))).toBe(true);
    expect(dueAt({ dom: 'L' }, wall(2028, 2, 28))).toBe(false);
    // 2026-01-20 is the third Tuesday of January 2026; 2026-01-30 its last Friday.
    expect(dueAt({ dow: '2#3' }, wall(2026, 1, 20))).toBe(true);
    expect(dueAt({ dow: '2#3' }, wall(2026, 1, 13))).toBe(false);
    expect(dueAt({ dow: 'l5' }, wall(2026, 1, 30))).toBe(true);
    expect(dueAt({ dow: 'l5' }, wall(2026, 1, 23))).toBe(false);
  });

  it.each([
    [{ minute: '61' }],
    [{ hour: '24' }],
    [{ dom: '0-40' }],
    [{ dom: '0' }],
    [{ month: '0' }],
    [{ dom: '?' }],
    [{ month: '13' }],
    [{ dow: '8' }],
    [{ minute: '*/0' }],
    [{ minute: '5-1' }],
    [{ dow: 'funday' }],
    [{ minute: '-5' }],
    [{ dow: '1#6' }],
    [{ dow: '1,2#3' }],
    [{ dow: 'fri-00' }],
    [{ begin: '25:00' }],
  ] as Schedule[][])('croniter refuses %j', (schedule) => {
    expect(() => compileSchedule(schedule)).toThrow(ScheduleError);
  });
});

describe('the time zone (TzClock, zettarepl/scheduler/tz_clock.py:41-42)', () => {
  it('a task is due at its local time, not UTC', () => {
    const s = { minute: '0', hour: '3' };
    expect(isDue(s, new Date('2010-08-30T23:00:00Z'), 'Europe/Moscow')).toBe(true);
    expect(isDue(s, new Date('2010-08-30T23:00:00Z'), 'UTC')).toBe(false);
    expect(isDue(s, new Date('2010-08-31T03:00:00Z'), 'UTC')).toBe(true);
  });

  it('an hour the clock repeats runs twice (test_tz_clock.py test__legit_time_backward)', () => {
    // Moscow set its clocks back at 2010-10-31 03:00 MSD to 02:00 MSK: 02:00 local was 22:00Z and 23:00Z.
    const s = { minute: '0', hour: '2' };
    expect(isDue(s, new Date('2010-10-30T22:00:00Z'), 'Europe/Moscow')).toBe(true);
    expect(isDue(s, new Date('2010-10-30T23:00:00Z'), 'Europe/Moscow')).toBe(true);
    expect(nextRun(s, new Date('2010-10-30T21:30:00Z'), 'Europe/Moscow')).toEqual(new Date('2010-10-30T22:00:00Z'));
    expect(nextRun(s, new Date('2010-10-30T22:00:00Z'), 'Europe/Moscow')).toEqual(new Date('2010-10-30T23:00:00Z'));
  });

  it('an hour the clock skips runs nothing that day', () => {
    // New York skipped 02:00–03:00 on 2026-03-08.
    expect(nextRun({ minute: '30', hour: '2' }, new Date('2026-03-08T05:00:00Z'), 'America/New_York')).toEqual(
      new Date('2026-03-09T06:30:00Z'),
    );
  });

  it('an unknown zone is refused', () => {
    expect(() => isDue({}, new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('nextRun', () => {
  it('is the next matching minute strictly after the given time', () => {
    const s = { minute: '*/15' };
    expect(nextRun(s, new Date('2026-01-05T10:07:30Z'), 'UTC')).toEqual(new Date('2026-01-05T10:15:00Z'));
    expect(nextRun(s, new Date('2026-01-05T10:15:00Z'), 'UTC')).toEqual(new Date('2026-01-05T10:30:00Z'));
    expect(nextRun(s, new Date('2026-01-05T23:50:00Z'), 'UTC')).toEqual(new Date('2026-01-06T00:00:00Z'));
  });

  it('waits for a leap day', () => {
    expect(nextRun({ minute: '0', hour: '0', dom: '29', month: '2' }, new Date('2026-03-01T00:00:00Z'), 'UTC')).toEqual(
      new Date('2028-02-29T00:00:00Z'),
    );
  });

  it('honours the window, including one that wraps midnight', () => {
    const s = { minute: '0', begin: '22:00', end: '02:00' };
    expect(nextRun(s, new Date('2026-01-05T02:00:00Z'), 'UTC')).toEqual(new Date('2026-01-05T22:00:00Z'));
  });

  it('answers undefined for a schedule no date satisfies (Feb 30), after a bounded search', () => {
    expect(nextRun({ minute: '0', hour: '0', dom: '30', month: '2' }, new Date('2026-01-01T00:00:00Z'), 'UTC')).toBe(
      undefined,
    );
  });

  it('answers undefined when the window excludes every hour the schedule names', () => {
    expect(
      nextRun({ minute: '0', hour: '3', begin: '09:00', end: '15:00' }, new Date('2026-01-01T00:00:00Z'), 'UTC'),
    ).toBe(undefined);
  });

  it.each([
    [
      'a working-hours schedule',
      { minute: '*/7', hour: '9-17', dow: 'mon,wed', begin: '10:00', end: '16:30' },
      '2026-03-29',
    ],
    ['spring forward', { minute: '*/20', hour: '1-3' }, '2026-03-29'],
    ['fall back', { minute: '*/20', hour: '1-3' }, '2026-10-25'],
  ])('agrees with isDue minute by minute over three days: %s in Berlin', (_, s, day) => {
    const tz = 'Europe/Berlin';
    const start = new Date(`${day}T00:00:00Z`);
    const due: number[] = [];
    for (let t = start.getTime(); t < start.getTime() + 3 * 86_400_000; t += 60_000) {
      if (isDue(s, new Date(t), tz)) due.push(t);
    }
    expect(due.length).toBeGreaterThan(0);
    let at = new Date(start.getTime() - 1);
    for (const t of due) {
      const next = nextRun(s, at, tz);
      expect(next?.getTime()).toBe(t);
      at = new Date(t);
    }
  });
});
