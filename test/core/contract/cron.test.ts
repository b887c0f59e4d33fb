import { describe, expect, it } from 'vitest';
import { cronScheduleError } from '../../../src/core/contract/cron.js';

// CronModel's validator (MW/api/v25_10_1/common.py:93-100) over croniter_for_schedule
// (MW/utils/cron.py:9-18): each expected text was produced by python3-croniter 1.3.5 (Debian
// bookworm, the base of TrueNAS 25.10) from the expression croniter_for_schedule builds.
const CASES: [Record<string, string>, string | null][] = [
  [{ minute: '61' }, 'Please ensure fields match cron syntax - [61 * * * * ] is not acceptable, out of range'],
  [{ minute: '1-70' }, 'Please ensure fields match cron syntax - 1-70 * * * *  is out of bands'],
  [{ minute: 'a' }, 'Please ensure fields match cron syntax - [a * * * *] is not acceptable'],
  [{ dom: '0' }, 'Please ensure fields match cron syntax - [* * 0 * * ] is not acceptable, out of range'],
  [{ month: '0' }, 'Please ensure fields match cron syntax - [* * * 0 * ] is not acceptable, out of range'],
  [{ dow: '7' }, null],
  [{ dow: '8' }, 'Please ensure fields match cron syntax - [* * * * 8 ] is not acceptable, out of range'],
  [{ dow: 'mon-fri' }, null],
  [{ dow: 'sat-sun' }, null],
  [{ month: 'jan,dec' }, null],
  [{ minute: '5-1' }, 'Please ensure fields match cron syntax - [5-1 * * * * ] is not acceptable'],
  [{ minute: '*/0' }, 'Please ensure fields match cron syntax - invalid range: range() arg 3 must not be zero'],
  [{ minute: '1,,2' }, 'Please ensure fields match cron syntax - [1,,2 * * * *] is not acceptable'],
  [
    { hour: '-1' },
    'Please ensure fields match cron syntax - [* -1 * * * ] is not acceptable,negative numbers not allowed',
  ],
  [{ hour: '*/61' }, null],
  [{ minute: '0-59/15' }, null],
  [{ dom: 'L' }, null],
  [{ dow: '1#2' }, null],
  [
    { dow: '1#6' },
    "Please ensure fields match cron syntax - [* * * * 1#6 ] is not acceptable.  Invalid day_of_week value: '1#6'",
  ],
  [{ minute: 'H' }, 'Please ensure fields match cron syntax - Hashed definitions must include hash_id'],
  [{ minute: '' }, null],
  [{ month: 'foo' }, 'Please ensure fields match cron syntax - [* * * foo *] is not acceptable'],
  [
    { dow: '1,2#3' },
    "Please ensure fields match cron syntax - day-of-week field does not support mixing literal values and nth day of week syntax.  Cron: '* * * * 1,2#3 '    dow={1} vs nth={2: {3}}",
  ],
  // The hash expander reads a whole field (croniter.py:864-944): `R` is a random value, not refused.
  [{ minute: 'R' }, null],
  [{ minute: 'h,1' }, 'Please ensure fields match cron syntax - [h,1 * * * *] is not acceptable'],
  [{ minute: 'R(5-4)' }, 'Please ensure fields match cron syntax - integer modulo by zero'],
  // int('l') is a ValueError that expand() re-raises through an exec that fails (croniter.py:776-781).
  [{ dom: 'L-5' }, "Please ensure fields match cron syntax - name 'exc' is not defined"],
  [{ dow: 'fri-00' }, 'Please ensure fields match cron syntax - [* * * * fri-00 ] is not acceptable'],
  [{ dow: '5l3' }, 'Please ensure fields match cron syntax - [* * * * 5l3] is not acceptable'],
  [{ dow: '1#2x' }, null],
  // A field holding a space makes six fields, the sixth croniter's seconds.
  [{ minute: '1 2' }, null],
];

describe('cronScheduleError (croniter 1.3.5 _expand, croniter.py:596-757)', () => {
  it.each(CASES)('%j: %s', (schedule, expected) => {
    expect(cronScheduleError(schedule)).toBe(expected);
  });
});
