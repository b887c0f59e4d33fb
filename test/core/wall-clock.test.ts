import { describe, expect, it } from 'vitest';
import { wallClock } from '../../src/core/wall-clock.js';

describe("an instant's wall clock in a zone (TzClock, zettarepl/scheduler/tz_clock.py:41-42)", () => {
  it('the wall clock of a UTC tick is local time (tests/scheduler/test_tz_clock.py test__time_forward)', () => {
    expect(wallClock(new Date('2010-08-30T23:00:00Z'), 'Europe/Moscow')).toEqual(new Date(Date.UTC(2010, 7, 31, 3, 0)));
  });

  it("keeps the instant's milliseconds and reads an hour a clock repeats once per instant", () => {
    // Moscow set its clocks back at 2010-10-31 03:00 MSD to 02:00 MSK: 02:00 local was 22:00Z and 23:00Z.
    expect(wallClock(new Date('2010-10-30T22:00:00.250Z'), 'Europe/Moscow')).toEqual(
      new Date(Date.UTC(2010, 9, 31, 2, 0, 0, 250)),
    );
    expect(wallClock(new Date('2010-10-30T23:00:00Z'), 'Europe/Moscow')).toEqual(new Date(Date.UTC(2010, 9, 31, 2)));
  });

  it('an unknown zone is refused', () => {
    expect(() => wallClock(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
