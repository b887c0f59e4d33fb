import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { MAX_REGEX_SIZE, regexSizeEstimate } from '../../../../src/core/appliance/query/regex-size.js';

describe('regexSizeEstimate', () => {
  // What bounds memory is the compiled program's size: the estimate must never be below it.
  const patterns = [
    'abc',
    '^[a-z0-9_.-]+$',
    '\\pL{1000}',
    '\\p{Greek}{10,20}x',
    '(?:a|bc|def){5,}',
    '(a{10}){10}',
    '((?:x{3}){4}){5}',
    '[]a]{7}\\Qa.b{3}\\E{2}',
    '(?P<name>\\d{4})-(\\d{2})?',
    '(?i)tank/(ds[0-9]{1,3})+$',
    'a{,5}{x}',
  ];

  it('is never below the size of the program RE2 compiles', () => {
    for (const p of patterns) {
      const compiled = RE2JS.compile(`\\A(?:${p})`).programSize();
      expect({ p, atLeastProgram: regexSizeEstimate(p) >= compiled }).toEqual({ p, atLeastProgram: true });
    }
  });

  it('stops counting past the limit, however large the expansion', () => {
    expect(regexSizeEstimate('\\pL{1000}'.repeat(260))).toBe(MAX_REGEX_SIZE + 1);
    expect(regexSizeEstimate('(((a{1000}){1000}){1000}){1000}')).toBe(MAX_REGEX_SIZE + 1);
    expect(regexSizeEstimate('\\pL{1000}'.repeat(9))).toBeLessThanOrEqual(MAX_REGEX_SIZE);
  });
});
