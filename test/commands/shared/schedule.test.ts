/**
 * The command line's words for periodic snapshot and replication tasks, as the verbs turn them into the
 * appliance's fields: a lifetime (`2w`) into lifetime_value/lifetime_unit, a five-field cron line
 * into the schedule object, and back for the table.
 */
import { describe, expect, it } from 'vitest';
import { cronLine, lifetimeText, parseCron, parseLifetime } from '../../../src/commands/shared/schedule.js';
import { StorError } from '../../../src/core/errors.js';

const usage = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(StorError);
    return { code: (err as StorError).code, message: (err as StorError).message };
  }
  throw new Error('no error');
};

describe('a lifetime', () => {
  it('is a whole number and h, d, w, m or y (or the unit spelt out), as PoolSnapshotTaskCreate takes it', () => {
    expect(parseLifetime('2w')).toEqual({ lifetime_value: 2, lifetime_unit: 'WEEK' });
    expect(parseLifetime('30d')).toEqual({ lifetime_value: 30, lifetime_unit: 'DAY' });
    expect(parseLifetime('1y')).toEqual({ lifetime_value: 1, lifetime_unit: 'YEAR' });
    expect(parseLifetime('12h')).toEqual({ lifetime_value: 12, lifetime_unit: 'HOUR' });
    expect(parseLifetime('6m')).toEqual({ lifetime_value: 6, lifetime_unit: 'MONTH' });
    expect(parseLifetime('3 months')).toEqual({ lifetime_value: 3, lifetime_unit: 'MONTH' });
    expect(lifetimeText(2, 'WEEK')).toBe('2w');
    expect(lifetimeText(1, 'MONTH')).toBe('1m');
  });

  it('of 0, or without a unit, is a usage error that says how to write one', () => {
    expect(usage(() => parseLifetime('0d'))).toMatchObject({ code: 'USAGE', message: expect.stringContaining('0') });
    expect(usage(() => parseLifetime('2'))).toMatchObject({ code: 'USAGE', message: expect.stringContaining('2w') });
    expect(usage(() => parseLifetime('2fortnights')).code).toBe('USAGE');
  });
});

describe('a schedule', () => {
  it('is a five-field cron line: minute hour day-of-month month day-of-week', () => {
    expect(parseCron('0 * * * *')).toEqual({ minute: '0', hour: '*', dom: '*', month: '*', dow: '*' });
    expect(parseCron(' 15  2 1-7 jan,jul mon ')).toEqual({
      minute: '15',
      hour: '2',
      dom: '1-7',
      month: 'jan,jul',
      dow: 'mon',
    });
  });

  it('that croniter would refuse, or not of five fields, is a usage error naming the line', () => {
    expect(usage(() => parseCron('0 * * *'))).toMatchObject({ code: 'USAGE', message: expect.stringContaining('5') });
    expect(usage(() => parseCron('61 * * * *'))).toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('61 * * * *'),
    });
    expect(usage(() => parseCron('0 0 0 0 0 0')).code).toBe('USAGE');
  });

  it('is shown as its cron line, with the window when it is not the whole day', () => {
    const hourly = { minute: '00', hour: '*', dom: '*', month: '*', dow: '*', begin: '00:00', end: '23:59' };
    expect(cronLine(hourly)).toBe('00 * * * *');
    expect(cronLine({ ...hourly, begin: '09:00', end: '17:00' })).toBe('00 * * * * (09:00-17:00)');
  });
});
