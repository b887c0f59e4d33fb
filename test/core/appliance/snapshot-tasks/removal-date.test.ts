import { describe, expect, it } from 'vitest';
import {
  fixateRemovalDates,
  formatRemovalDate,
  parseRemovalDate,
  removalDateProperty,
} from '../../../../src/core/appliance/snapshot-tasks/removal-date.js';
import { parseStrftime } from '../../../helpers/strftime-parse.js';

function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
}

describe('the removal date property (MW/plugins/snapshot_/removal_date.py:10-12)', () => {
  it('is named for the first 8 characters of the host id', () => {
    expect(removalDateProperty('0123456789abcdef0123456789abcdef')).toBe('org.truenas:destroy_at_01234567');
  });

  it('is written as isoformat() of a wall clock, with no offset (MW/plugins/zettarepl_/snapshot_removal_date.py:103)', () => {
    expect(formatRemovalDate(utc(2026, 1, 5, 10, 0))).toBe('2026-01-05T10:00:00');
    expect(formatRemovalDate(utc(2026, 1, 5, 10, 0, 7, 250))).toBe('2026-01-05T10:00:07.250000');
  });

  it('is read back as the same wall clock; an offset in the value is dropped, as retention compares it (snapshot_removal_date_snapshot_owner.py:33)', () => {
    expect(parseRemovalDate('2026-01-05T10:00:00')).toEqual(utc(2026, 1, 5, 10, 0));
    expect(parseRemovalDate('2026-01-05T10:00:07.250000')).toEqual(utc(2026, 1, 5, 10, 0, 7, 250));
    expect(parseRemovalDate('2026-01-05T10:00:00+05:00')).toEqual(utc(2026, 1, 5, 10, 0));
    expect(parseRemovalDate('2026-01-05T10:00Z')).toEqual(utc(2026, 1, 5, 10, 0));
  });

  it.each(['-', 'tomorrow', '2026-02-30T10:00:00', '2026-01-05T24:00:00', '2026-01-05'])(
    'an unreadable value %j is no date (the middleware skips it, snapshot_removal_date.py:43-47)',
    (value) => {
      expect(parseRemovalDate(value)).toBe(undefined);
    },
  );
});

describe('fixate_removal_date (MW/plugins/zettarepl_/snapshot_removal_date.py:80-110)', () => {
  const task = { namingSchema: 'auto-%Y-%m-%d_%H-%M', lifetime: { value: 2, unit: 'WEEK' as const } };

  it("sets each snapshot's date to its name's time plus the lifetime", () => {
    expect(fixateRemovalDates(task, [{ dataset: 'tank/data', name: 'auto-2026-01-05_10-00' }], parseStrftime)).toEqual([
      { dataset: 'tank/data', name: 'auto-2026-01-05_10-00', removalDate: utc(2026, 1, 19, 10, 0) },
    ]);
  });

  it('leaves a date already as late or later, and moves an earlier one', () => {
    const snapshots = [
      { dataset: 'tank/data', name: 'auto-2026-01-05_10-00', removalDate: utc(2026, 1, 19, 10, 0) },
      { dataset: 'tank/data', name: 'auto-2026-01-05_11-00', removalDate: utc(2027, 1, 1) },
      { dataset: 'tank/data', name: 'auto-2026-01-05_12-00', removalDate: utc(2026, 1, 6) },
    ];
    expect(fixateRemovalDates(task, snapshots, parseStrftime)).toEqual([
      { dataset: 'tank/data', name: 'auto-2026-01-05_12-00', removalDate: utc(2026, 1, 19, 12, 0) },
    ]);
  });

  it('gives none to a name the schema does not parse', () => {
    expect(fixateRemovalDates(task, [{ dataset: 'tank/data', name: 'manual' }], parseStrftime)).toEqual([]);
  });
});
