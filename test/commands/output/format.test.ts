import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatMode, formatTime } from '../../../src/commands/output/format.js';
import { fitWidths, shortenMiddle } from '../../../src/commands/output/table.js';

describe('one human format per kind of value', () => {
  it('modes as ls -l shows them, with the octal; special bits s/S/t/T', () => {
    expect(formatMode(0o100644)).toBe('-rw-r--r-- 0644');
    expect(formatMode(0o040755)).toBe('drwxr-xr-x 0755');
    expect(formatMode(0o755, 'DIRECTORY')).toBe('drwxr-xr-x 0755');
    expect(formatMode(0o104755)).toBe('-rwsr-xr-x 4755');
    expect(formatMode(0o102644)).toBe('-rw-r-Sr-- 2644');
    expect(formatMode(0o041777)).toBe('drwxrwxrwt 1777');
    expect(formatMode(0o041776)).toBe('drwxrwxrwT 1776');
    expect(formatMode(0o120777)).toBe('lrwxrwxrwx 0777');
  });

  it('times in local ISO 8601 with the offset of the given zone', () => {
    const at = new Date('2026-01-15T12:30:45.678Z');
    expect(formatTime(at, 'UTC')).toBe('2026-01-15T12:30:45+00:00');
    expect(formatTime(at, 'Europe/Berlin')).toBe('2026-01-15T13:30:45+01:00');
    expect(formatTime(at, 'America/New_York')).toBe('2026-01-15T07:30:45-05:00');
    expect(formatTime(at, 'Asia/Kolkata')).toBe('2026-01-15T18:00:45+05:30');
  });
});

describe('durations as a person says them (system info uptime)', () => {
  it('the two largest units, no fractions of a second', () => {
    expect(formatDuration(9.313)).toBe('9 s');
    expect(formatDuration(729.313)).toBe('12 min 9 s');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(2 * 3600 + 5 * 60 + 7)).toBe('2 h 5 min');
    expect(formatDuration(86400 + 59)).toBe('1 day');
    expect(formatDuration(3 * 86400 + 4 * 3600 + 120)).toBe('3 days 4 h');
    expect(formatDuration(0)).toBe('0 s');
  });
});

describe('fitting text to the terminal', () => {
  it('shortens in the middle by display width, wide characters whole', () => {
    expect(shortenMiddle('short.txt', 20)).toBe('short.txt');
    expect(shortenMiddle('a-very-long-file-name.tar.gz', 12)).toBe('a-very…ar.gz');
    const cjk = shortenMiddle('漢字のファイル名がとても長い.txt', 11);
    expect(stringWidth(cjk)).toBeLessThanOrEqual(11);
    expect(cjk).toMatch(/^漢字.*….*txt$/);
  });

  it('gives way with the widest wrapping or truncating column; a `never` column (numbers, identifiers, statuses) never', () => {
    const cols = [{ overflow: 'never' as const }, { overflow: 'truncate' as const }, { overflow: 'wrap' as const }];
    expect(fitWidths([5, 10, 10], cols, 80)).toEqual([5, 10, 10]);
    const fitted = fitWidths([5, 40, 60], cols, 60);
    expect(fitted[0]).toBe(5);
    expect(fitted.reduce((a, b) => a + b, 0) + 4).toBeLessThanOrEqual(60);
    // As a last resort the others shrink to nothing (a wrapped one to its longest word), the `never` one stays whole.
    const squeezed = fitWidths([30, 40, 60], cols, 30, [30, 40, 9]);
    expect(squeezed[0]).toBe(30);
    expect(squeezed[2]).toBe(9);
  });
});
