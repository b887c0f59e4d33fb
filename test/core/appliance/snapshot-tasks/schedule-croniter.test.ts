import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileSchedule,
  isDueAtWallClock,
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
