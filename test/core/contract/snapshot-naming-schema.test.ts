import { describe, expect, it } from 'vitest';
import {
  namingSchemaError,
  parseSnapshotName,
  snapshotName,
  strftimeNaming,
  tryParseSnapshotName,
  type NamingTime,
} from '../../../src/core/contract/snapshot-naming-schema.js';

// zettarepl/snapshot/name.py at release/25.10.1 (stable/26 is the same); the expected texts were
// taken from that file run under CPython 3.11.

const at = (offsetMinutes: number | null): NamingTime => ({
  year: 2024,
  month: 1,
  day: 5,
  hour: 3,
  minute: 7,
  second: 9,
  offsetMinutes,
});

describe('validate_snapshot_naming_schema (name.py:111-152)', () => {
  it('accepts the default schema and one with %z', () => {
    expect(namingSchemaError('auto-%Y-%m-%d_%H-%M')).toBeNull();
    expect(namingSchemaError('%Y-%m-%d_%H-%M_%z')).toBeNull();
    expect(namingSchemaError('auto-%s')).toBeNull();
  });

  it('names the first of %Y %m %d %H %M missing (name.py:125-127)', () => {
    expect(namingSchemaError('auto-%Y-%m-%d')).toBe('%H must be present in snapshot naming schema');
    expect(namingSchemaError('%y-%m-%d_%H-%M')).toBe('%Y must be present in snapshot naming schema');
  });

  it('refuses characters ZFS does not allow, one or several (name.py:112-119)', () => {
    expect(namingSchemaError('a/%Y%m%d%H%M')).toBe('/ is not an allowed character in ZFS snapshot name');
    expect(namingSchemaError('a@/%Y%m%d%H%M')).toBe('@/ are not allowed characters in ZFS snapshot name');
    expect(namingSchemaError('%%Y%m%d%H%M')).toBe('% is not an allowed character in ZFS snapshot name');
  });

  it('refuses %s with another placeholder, and %z with `--` (name.py:121-132)', () => {
    expect(namingSchemaError('auto-%s-%Y')).toBe('No other placeholder can be used with %s in naming schema');
    expect(namingSchemaError('%Y%m%d%H%M%z--')).toBe(
      "%z and `--` can't be present in snapshot naming schema at the same time. ZFS snapshot names can't contain `+` so we use `--` instead.",
    );
  });

  it('refuses a schema whose names do not parse back to their time (name.py:134-152)', () => {
    // %I after %H: strptime takes the hour from %I, 07 instead of 19.
    expect(namingSchemaError('%Y-%m-%d_%H-%M%I')).toBe(
      "Failed to parse datetime using provided format: datetime=datetime.datetime(2000, 2, 29, 19, 40, tzinfo=<StaticTzInfo 'Etc/GMT-10'>), formatted=2000-02-29_19-4007, parsed=datetime.datetime(2000, 2, 29, 7, 40)",
    );
  });
  it("refuses a schema ending in a lone %, as strptime's 'stray %' (name.py:45-46; CPython 3.11 _strptime.py)", () => {
    // strftime keeps the lone % (glibc copies it), strptime then cannot read the directive after it.
    expect(namingSchemaError('a-%Y-%m-%d_%H-%M%')).toBe("stray % in format 'a-%Y-%m-%d_%H-%M%'");
    expect(() => parseSnapshotName('a-2000-02-29_19-40%', 'a-%Y-%m-%d_%H-%M%')).toThrow(
      "stray % in format 'a-%Y-%m-%d_%H-%M%'",
    );
  });
});

describe('get_snapshot_name (name.py:21-22)', () => {
  it('formats with strftime and writes + as --', () => {
    expect(snapshotName('auto-%Y-%m-%d_%H-%M', at(60))).toBe('auto-2024-01-05_03-07');
    expect(snapshotName('auto-%Y%m%d.%H%M%S%z', at(90))).toBe('auto-20240105.030709--0130');
    expect(snapshotName('auto-%Y%m%d.%H%M%z', at(-600))).toBe('auto-20240105.0307-1000');
    expect(strftimeNaming('%j %a %b %I%p %y', at(null))).toBe('005 Fri Jan 03AM 24');
  });

  it('leaves %z empty for a naive time, as datetime.now().strftime does', () => {
    expect(strftimeNaming('x-%Y%m%d%H%M%z', at(null))).toBe('x-202401050307');
  });
});

describe('parse_snapshot_name (name.py:25-53)', () => {
  it('reads the time back from a name', () => {
    const p = parseSnapshotName('auto-2024-01-05_03-07', 'auto-%Y-%m-%d_%H-%M');
    expect(p.time).toEqual({ year: 2024, month: 1, day: 5, hour: 3, minute: 7, second: 0 });
    expect(p.offsetMinutes).toBeNull();
  });

  it('accepts unpadded fields as strptime does', () => {
    expect(parseSnapshotName('auto-2024-1-5_3-7', 'auto-%Y-%m-%d_%H-%M').time).toEqual({
      year: 2024,
      month: 1,
      day: 5,
      hour: 3,
      minute: 7,
      second: 0,
    });
  });

  it('reads the offset from `--` and from the older `:` (name.py:36-42)', () => {
    expect(parseSnapshotName('auto-20240105.0307--0130', 'auto-%Y%m%d.%H%M%z').offsetMinutes).toBe(90);
    expect(parseSnapshotName('auto-20240105.0307:0130', 'auto-%Y%m%d.%H%M%z').offsetMinutes).toBe(90);
  });

  it("raises strptime's texts for a name that does not fit", () => {
    expect(() => parseSnapshotName('manual-1', 'auto-%Y-%m-%d_%H-%M')).toThrow(
      "time data 'manual-1' does not match format 'auto-%Y-%m-%d_%H-%M'",
    );
    expect(() => parseSnapshotName('auto-2024-01-05_03-07x', 'auto-%Y-%m-%d_%H-%M')).toThrow(
      'unconverted data remains: x',
    );
    expect(tryParseSnapshotName('auto-2024-02-30_03-07', 'auto-%Y-%m-%d_%H-%M')).toBeNull();
  });

  it('reads %s as epoch seconds in local time (name.py:26-33)', () => {
    const name = snapshotName('auto-%s', at(null));
    expect(name).toMatch(/^auto-\d+$/);
    expect(parseSnapshotName(name, 'auto-%s').time).toEqual({
      year: 2024,
      month: 1,
      day: 5,
      hour: 3,
      minute: 7,
      second: 9,
    });
    expect(() => parseSnapshotName('auto-x', 'auto-%s')).toThrow("time data 'auto-x' does not match format 'auto-%s'");
  });
});
