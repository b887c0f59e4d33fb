import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnmatch } from '../../../src/core/appliance/fnmatch.js';

const PYTHON_FNMATCH = `
import fnmatch, json, sys
print(json.dumps([fnmatch.fnmatch(n, p) for n, p in json.load(sys.stdin)]))
`;

/** Python's own `fnmatch.fnmatch` for each [name, pattern], from the machine's python3. */
function pythonFnmatch(cases: readonly (readonly [string, string])[]): boolean[] {
  const r = spawnSync('python3', ['-c', PYTHON_FNMATCH], { input: JSON.stringify(cases), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as boolean[];
}

describe("fnmatch, as Python's fnmatch.fnmatch on POSIX", () => {
  it('* and ? cross `/`, [seq] and [!seq] are sets, an unclosed [ is itself', () => {
    expect(fnmatch('tank/data/a/b', 'tank/*/b')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/?')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/[ab]')).toBe(true);
    expect(fnmatch('tank/data/c', 'tank/data/[!ab]')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/[!ab]')).toBe(false);
    expect(fnmatch('tank/[x', 'tank/[x')).toBe(true);
    expect(fnmatch('tank/data.x', 'tank/data?x')).toBe(true);
    expect(fnmatch('tank/dataxx', 'tank/data.x')).toBe(false);
  });

  it('answers as the machine’s Python does for generated names and patterns', () => {
    // Few letters, so that patterns and names meet often; the pattern alphabet adds the wildcards,
    // sets and the characters a regular expression would read.
    const name = fc.string({ unit: fc.constantFrom(...'ab/.x'), maxLength: 12 });
    const pattern = fc.string({ unit: fc.constantFrom(...'ab/.*?[]!^-\\x'), maxLength: 8 });
    const cases = fc.sample(fc.tuple(name, pattern), { numRuns: 3000, seed: 4107 });
    const python = pythonFnmatch(cases);
    const mismatches = cases.filter(([n, p], i) => fnmatch(n, p) !== python[i]);
    expect(mismatches).toEqual([]);
    // The sample is not one-sided: both answers occur.
    expect(new Set(python).size).toBe(2);
  });

  it('counts a character outside the BMP as one, as Python indexes a str by code point', () => {
    // An emoji is two UTF-16 units: one `?`, one member of a set, one end of a range in Python
    // (fnmatch.py:80-142 walk the pattern and name by code point).
    const name = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\u{10000}', '\n', '-'), maxLength: 6 });
    const pattern = fc.string({
      unit: fc.constantFrom('a', 'é', '😀', '\u{10000}', '*', '?', '[', ']', '!', '-', '&', '~', '|'),
      maxLength: 7,
    });
    const cases = fc.sample(fc.tuple(name, pattern), { numRuns: 3000, seed: 5113 });
    const python = pythonFnmatch(cases);
    const mismatches = cases.filter(([n, p], i) => fnmatch(n, p) !== python[i]);
    expect(mismatches).toEqual([]);
    expect(fnmatch('😀', '?')).toBe(true);
    expect(fnmatch('😀', '[a-😀]')).toBe(true);
    // A `]` first in a set is a member (fnmatch.py:84-86), which a JavaScript class would close on.
    expect(fnmatch(']', '[]]')).toBe(true);
    expect(fnmatch('a', '[!]]')).toBe(true);
    expect(fnmatch(']', '[!]]')).toBe(false);
    expect(fnmatch(']x', '[]a]x')).toBe(true);
    expect(new Set(python).size).toBe(2);
  });

  it('a pattern of many stars against a long name that it does not match answers as Python does', () => {
    // Translated without fnmatch's atomic groups (fnmatch.py:162-182) this pattern backtracks
    // through about 250^12 ways of placing its stars and never returns; this test would hang.
    const name = `${'a'.repeat(250)}`;
    const pattern = `${'*a'.repeat(12)}*b`;
    expect(fnmatch(name, pattern)).toBe(false);
    expect(fnmatch(`${name}b`, pattern)).toBe(true);
    expect(pythonFnmatch([[name, pattern]])).toEqual([false]);
  });
});
