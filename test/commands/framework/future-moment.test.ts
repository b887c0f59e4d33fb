import { describe, expect, it } from 'vitest';
import { futureMoment } from '../../../src/commands/framework/arg-parsers.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const parse = futureMoment('--expires', () => NOW);

describe('--expires: ISO 8601 in the future, local time without an offset', () => {
  it('reads offsets and Z as given, and everything else in the local zone', () => {
    expect(parse('2027-01-31T18:00Z')).toBe(Date.parse('2027-01-31T18:00:00Z'));
    expect(parse('2027-01-31T18:00:30+0200')).toBe(Date.parse('2027-01-31T16:00:30Z'));
    expect(parse('2027-01-31T18:00-05:00')).toBe(Date.parse('2027-01-31T23:00:00Z'));
    expect(parse('2027-01-31')).toBe(new Date(2027, 0, 31).getTime());
    expect(parse('2027-01-31 18:05')).toBe(new Date(2027, 0, 31, 18, 5).getTime());
  });

  it('refuses days the calendar lacks, other shapes, and moments already past', () => {
    for (const raw of ['2027-02-30', '2027-13-01', 'tomorrow', '31/01/2027', '2027-01-31T25:00', '']) {
      expect(() => parse(raw), raw).toThrow(/takes an ISO 8601 date/);
    }
    expect(() => parse('2026-06-01T11:59Z')).toThrow('--expires must be in the future');
    expect(() => parse('2026-06-01T12:00Z')).toThrow('--expires must be in the future');
  });
});
