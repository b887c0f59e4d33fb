import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
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
    except (re.error, OverflowError):
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

/** Python's answers for each regex over the names (null where it refuses the regex). */
function pythonAnswers(regexes: readonly string[], names: readonly string[]): (boolean[] | null)[] {
  const r = spawnSync('python3', ['-W', 'ignore', '-c', PYTHON_MATCH], {
    input: JSON.stringify(regexes.map((regex) => [regex, names])),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as (boolean[] | null)[];
}

function ourAnswers(regexes: readonly string[], names: readonly string[]): (boolean[] | null)[] {
  return regexes.map((regex) => {
    try {
      const matches = nameRegexTest(regex);
      return names.map(matches);
    } catch {
      return null;
    }
  });
}

/** The regexes on which the two differ, with both answers. */
function differences(regexes: readonly string[], names: readonly string[]): unknown[] {
  const python = pythonAnswers(regexes, names);
  const ours = ourAnswers(regexes, names);
  return regexes.flatMap((regex, i) =>
    JSON.stringify(ours[i]) === JSON.stringify(python[i]) ? [] : [{ regex, python: python[i], ours: ours[i] }],
  );
}

describe("name_regex, as zettarepl's re.compile(f'({regex})$').match", () => {
  it('reads what Python reads differently from RE2 and JavaScript as Python does', () => {
    const names = ['snap', 'snap\n', 'a', 'aa', 'aaa', 'a{,3}', '', 'd]', '3', 'ab', 'a\nb', 'U', 'x\n\n'];
    const regexes = [
      // `$` is also before a newline that ends the name (_parser.py AT_END).
      'snap',
      'snap$',
      '.*',
      '(?m:snap$)',
      '(?m:a$)\\nb',
      // `{,n}` repeats from 0 (_parser.py:644-672).
      'a{,3}',
      'a{,}',
      'a{,3',
      // A `[` in a set is itself, not a POSIX class.
      '[[:digit:]]+',
      '[[:alpha:]]',
      // Comments, \\u and \\U escapes, ASCII and UNICODE flags in a group.
      '(?#c)a',
      'a(?#x(y)b',
      '\\u0061',
      '\\U00000061+',
      '[\\U00000061b]+',
      '(?a:\\w)',
      '(?u:a)',
      // Octal escapes and group references.
      '\\141',
      '\\0',
      '[\\2]',
      '(a)\\2',
      '(?P<x>a)(?P=x)',
      // What Python refuses and RE2 or JavaScript would take.
      '(?U:a+)',
      '(?<n>a)',
      '\\x{61}',
      '\\x6',
      '\\u006',
      '\\U00110000',
      '\\1',
      '(a)\\3',
      '\\8',
      '[\\8]',
      '(?P=x)',
      '(?P<1>a)',
      '(?P<x>a)(?P<x>b)',
      '(?P<x>a(?P=x))',
      '(?-u:a)',
      '(?au:a)',
      '(?L:a)',
      '\\A*',
      '^+a',
      '$?',
      '\\b{2}',
      '\\Z{,2}',
      '\\A(?#c)?',
      '\\777',
      // Extensions Python does not know, and flags it refuses, in its words and at the character
      // it stops at (_parser.py:_parse, _parse_flags).
      '?',
      '(?)',
      'a(?)b',
      '(?%a)',
      '(?P>a)',
      '(?P)',
      '(?-)',
      '(?-:a)',
      '(?iq:a)',
      '(?i%:a)',
      '(?i-q:a)',
      '(?i-%:a)',
      '(?x-:a)',
      // Look-behind of no fixed width: Python refuses it when it compiles (_compiler.py), JavaScript runs it.
      '(?<=a+)b',
    ];
    expect(differences(regexes, names)).toEqual([]);
  });

  it("refuses in the words of the machine's Python, positions counted in `({regex})$`", () => {
    const regexes = ['a**', 'a{2,1}', '(a)\\1', '\\q', '^*', '(?<=a+)b', '(?P<1>x)'];
    const r = spawnSync(
      'python3',
      [
        '-c',
        'import json, re, sys\nfor p in json.load(sys.stdin):\n    try:\n        re.compile(f"({p})$")\n        print("")\n    except re.error as e:\n        print(e)',
      ],
      { input: JSON.stringify(regexes), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const ours = regexes.map((regex) => {
      try {
        nameRegexTest(regex);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    });
    expect(ours).toEqual(r.stdout.split('\n').slice(0, regexes.length));
  });

  it('refuses a named character `\\N{…}` in its own words rather than match other names than Python', () => {
    // Python reads \N{DIGIT ONE} as `1` (unicodedata.lookup); the emulator has no Unicode names.
    for (const regex of ['\\N{DIGIT ONE}', '(?=.)\\N{DIGIT ONE}', '(a)\\2|[\\N{DIGIT ONE}]'])
      expect(() => nameRegexTest(regex), regex).toThrow(
        /^\\N\{DIGIT ONE\} \(named characters\) is not supported by the emulator$/,
      );
  });

  it('answers as the machine’s Python for generated patterns', () => {
    // Python-only syntax and what differs between the engines (repeats, anchors, sets, groups,
    // references, escapes), over names that end in a newline too. Left out, as known differences:
    // possessive repeats and atomic groups, lookaround, \\B on an empty name, and text after `$`
    // that matches the newline `$` stood before.
    const token = fc.constantFrom(
      ...['a', 'b', '.', '*', '?', '{,2}', '{1,}', '{2}', '{', '}', '(', ')', '[', ']', '[^', '^', '$', '|', '-'],
      ...['\\d', '\\w', '\\s', '\\Z', '\\A', '\\b', '\\n', '\\x41', '\\0', '\\12', '\\u0061', '\\', 'A', '\n'],
      ...['(?:', '(?P<g>', '(?P=g)', '\\1', '\\2', '(?#x)', '(?i:', '(?m:', '(?s:', '(?a:'],
    );
    const regexes = fc
      .sample(
        fc.array(token, { maxLength: 7 }).map((tokens) => tokens.join('')),
        { numRuns: 6000, seed: 9151 },
      )
      .filter((regex) => !/^\?|[*?}]\+|\$(?![)|]|$)/.test(regex));
    const names = ['', 'a', 'b', 'ab', 'aa', 'a\n', 'ab\n', '\n', 'A', 'a\nb', 'aaa', '1', 'a-b', '{', 'a{,2}'];
    expect(differences(regexes, names)).toEqual([]);
  });

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

  it('a pattern RE2 does not take, that backtracks without end on a name, fails on it instead of holding the process', () => {
    // A reference, or a repeat over RE2's limit, sends the pattern to JavaScript's backtracking
    // engine: (a+)+ against 250 a's then takes it about 2^250 steps, as it would Python's.
    for (const regex of ['(?P<x>a)(a+)+b(?P=x)', '(a+)+(?=b)', '(a+)+(b?){1001}c']) {
      const matches = nameRegexTest(regex);
      expect(() => matches('a'.repeat(250)), regex).toThrow(/backtracks without end/);
    }
    // Names it answers stay answered, the same matcher again.
    const matches = nameRegexTest('(?P<x>a)(a+)+b(?P=x)');
    expect(matches('aaaba')).toBe(true);
    expect(matches('aaabb')).toBe(false);
  });

  it('a nested repetition against a long name it does not match answers instead of backtracking for hours', () => {
    // Python's engine and JavaScript's both take about 2^250 steps on this (re.match does not return);
    // RE2's runs in time linear in the name.
    const matches = nameRegexTest('(a+)+');
    expect(matches(`${'a'.repeat(250)}b`)).toBe(false);
    expect(matches('a'.repeat(250))).toBe(true);
  });
});
