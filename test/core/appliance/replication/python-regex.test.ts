import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nameRegexTest } from '../../../../src/core/appliance/replication/python-regex.js';

// zettarepl matches a replication's name_regex as re.compile(f"({regex})$").match(name)
// (zettarepl/replication/task/name_pattern.py:7-8); the machine's python3 answers the same here.
const PYTHON_MATCH = `
import json, re, sys
out = []
for regex, names in json.load(sys.stdin):
    try:
        p = re.compile(f"({regex})$")
    except re.error:
        out.append(None)
        continue
    out.append([p.match(n) is not None for n in names])
print(json.dumps(out))
`;

const NAMES = [
  'auto-2026-11-30_10-00',
  'auto-2026-11-30_10-00x',
  'manual-1',
  'Auto-x',
  'aaaa',
  'aab',
  'abab',
  'snap',
  '',
];

const REGEXES = [
  'auto-.*',
  'auto-\\d{4}-\\d\\d-\\d\\d_\\d\\d-\\d\\d',
  'auto-[0-9-]+_[0-9]{2}-[0-9]{2}|manual-.*',
  '(a+)+',
  '(?P<x>ab)(?P=x)',
  '\\Aauto.*',
  'snap\\Z',
  'a(?=a)a+',
  '(?i:auto)-x',
  '[^/]+',
  '\\-?manual\\-1',
  '',
  '(',
  'a\\q',
];

describe("name_regex, as zettarepl's re.compile(f'({regex})$').match", () => {
  it('answers as the machine’s Python for realistic and awkward patterns', () => {
    const r = spawnSync('python3', ['-c', PYTHON_MATCH], {
      input: JSON.stringify(REGEXES.map((regex) => [regex, NAMES])),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const python = JSON.parse(r.stdout) as (boolean[] | null)[];
    const ours = REGEXES.map((regex) => {
      try {
        const matches = nameRegexTest(regex);
        return NAMES.map(matches);
      } catch {
        return null;
      }
    });
    expect(ours).toEqual(python);
  });

  it('a nested repetition against a long name it does not match answers instead of backtracking for hours', () => {
    // Python's engine and JavaScript's both take about 2^250 steps on this (re.match does not return);
    // RE2's runs in time linear in the name.
    const matches = nameRegexTest('(a+)+');
    expect(matches(`${'a'.repeat(250)}b`)).toBe(false);
    expect(matches('a'.repeat(250))).toBe(true);
  });
});
