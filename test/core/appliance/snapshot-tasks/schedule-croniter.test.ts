import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileSchedule,
  isDue,
  isDueAtWallClock,
  nextRun,
  ScheduleError,
  type Schedule,
} from '../../../../src/core/appliance/snapshot-tasks/schedule.js';

// What zettarepl's should_run answered, run with the croniter 25.10.1 ships (Debian bookworm's
// python3-croniter 1.3.5), for sampled minutes of 2026–2029 and the minutes around croniter's own
// matches: test/fixtures/croniter/generate.py says how it was recorded.
interface Recorded {
  readonly croniter: string;
  readonly cases: readonly { schedule: Schedule; due: string[]; notDue: string[] }[];
  readonly invalid: readonly Schedule[];
}

const recorded = JSON.parse(
  readFileSync(new URL('../../../fixtures/croniter/should-run-1.3.5.json', import.meta.url), 'utf8'),
) as Recorded;

const wall = (iso: string) => new Date(`${iso}:00Z`);

describe(`schedules against zettarepl's should_run with croniter ${recorded.croniter}`, () => {
  it.each(recorded.cases.map((c) => [JSON.stringify(c.schedule), c] as const))('%s', (_, c) => {
    const compiled = compileSchedule(c.schedule);
    expect(c.due.filter((at) => !isDueAtWallClock(compiled, wall(at)))).toEqual([]);
    expect(c.notDue.filter((at) => isDueAtWallClock(compiled, wall(at)))).toEqual([]);
  });

  it.each(recorded.invalid.map((s) => [JSON.stringify(s), s] as const))('croniter refuses %s', (_, s) => {
    expect(() => compileSchedule(s)).toThrow(ScheduleError);
  });
});

// The UTC minutes zettarepl's scheduler ran tasks on around the 2026 clock changes of a few zones
// (TzClock with pytz, then should_run): test/fixtures/croniter/generate-tz.py.
interface ZoneCase {
  readonly zone: string;
  readonly from: string;
  readonly minutes: number;
  readonly schedule: Schedule;
  readonly due: readonly string[];
}

const zoneCases = JSON.parse(
  readFileSync(new URL('../../../fixtures/croniter/tz-1.3.5.json', import.meta.url), 'utf8'),
) as ZoneCase[];

describe("isDue and nextRun against zettarepl's scheduler in a time zone", () => {
  it.each(zoneCases.map((c) => [c.zone, c.from, JSON.stringify(c.schedule), c] as const))(
    '%s from %s: %s',
    (_, __, ___, c) => {
      const start = wall(c.from).getTime();
      const due: string[] = [];
      for (let t = start; t < start + c.minutes * 60_000; t += 60_000) {
        if (isDue(c.schedule, new Date(t), c.zone)) due.push(new Date(t).toISOString().slice(0, 16));
      }
      expect(due).toEqual(c.due);
      let after = new Date(start - 1);
      const runs: string[] = [];
      for (let next = nextRun(c.schedule, after, c.zone); next && next.getTime() < start + c.minutes * 60_000;) {
        runs.push(next.toISOString().slice(0, 16));
        after = next;
        next = nextRun(c.schedule, after, c.zone);
      }
      expect(runs).toEqual(c.due);
    },
  );
});
