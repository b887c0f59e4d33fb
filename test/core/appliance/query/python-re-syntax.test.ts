import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkPythonPattern,
  PythonReError,
  type PythonRelease,
  UnsupportedByEmulator,
} from '../../../../src/core/appliance/query/python-re-syntax.js';
import { compilePyRegex } from '../../../../src/core/appliance/query/python.js';

// Python's answers, recorded by test/fixtures/python-re/generate.py with /usr/bin/python3 (3.11.2,
// Debian bookworm's, as 25.10 ships) and 3.13.0 (26.0 is built on trixie: MW/.github/workflows/
// lint.yml:27 at TS-26.0.0-BETA.3). The middleware runs `re.match(y, x or '')` for `~`
// (MW/src/middlewared/middlewared/utils/filter_list.py:157 at TS-25.10.1,
// MW/src/middlewared/middlewared/api/base/validators/filter_ops.py:32 at TS-26.0.0-BETA.3), so
// these are the patterns it compiles and the re.error text it raises.
const corpus = JSON.parse(
  readFileSync(new URL('../../../fixtures/python-re/corpus.json', import.meta.url), 'utf8'),
) as {
  results: Record<string, Record<PythonRelease, string | null>>;
  subjects: string[];
  matches: Record<string, Record<PythonRelease, string>>;
};

function answer(pattern: string, version: PythonRelease): string | null | 'unsupported' {
  try {
    checkPythonPattern(pattern, version);
    return null;
  } catch (err) {
    if (err instanceof UnsupportedByEmulator) return 'unsupported';
    if (err instanceof PythonReError) return err.message;
    throw err;
  }
}

describe("Python's re: which patterns compile, and its words for the others", () => {
  for (const version of ['3.11', '3.13'] as const) {
    it(`agrees with Python ${version} on every pattern of the corpus`, () => {
      const wrong: string[] = [];
      for (const [pattern, answers] of Object.entries(corpus.results)) {
        const want = answers[version]?.replace(/^OverflowError: /, '') ?? null;
        const got = answer(pattern, version);
        // \N{…} needs Unicode's names, which the emulator lacks: refused in its own words.
        if (got === 'unsupported' && pattern.includes('\\N{')) continue;
        if (got !== want)
          wrong.push(`${JSON.stringify(pattern)}: Python ${JSON.stringify(want)}, ours ${JSON.stringify(got)}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it('the corpus holds both what Python refuses and what it accepts', () => {
    const answers = Object.values(corpus.results);
    expect(answers.length).toBeGreaterThan(300);
    expect(answers.filter((a) => a['3.11'] === null).length).toBeGreaterThan(100);
    expect(answers.filter((a) => a['3.11'] !== null).length).toBeGreaterThan(100);
  });

  it('`~` refuses every pattern Python 3.11 refuses in its words, and runs the others or says it cannot', () => {
    const wrong: string[] = [];
    for (const [pattern, answers] of Object.entries(corpus.results)) {
      const want = answers['3.11']?.replace(/^OverflowError: /, '');
      let got: string | undefined;
      try {
        compilePyRegex(pattern);
      } catch (err) {
        got = (err as Error).message;
      }
      const ours = got?.startsWith(`${pattern}: regular expression not supported by the emulator (`);
      if (
        want === undefined
          ? got !== undefined && !ours
          : got !== `${pattern}: ${want}` && !(ours && pattern.includes('\\N{'))
      )
        wrong.push(
          `${JSON.stringify(pattern)}: Python ${JSON.stringify(want ?? null)}, ours ${JSON.stringify(got ?? null)}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  // The emulator differences docs/RELEASES.md lists for `~`: RE2's `\b`/`\B` are ASCII's (`é` is
  // no word character to them), Python 3.11's `\B` never matches an empty text, and a `$` that
  // ends the text before a final newline consumes it, so `$^` misses `"\n"`.
  const KNOWN_DIFFERENCES = new Set(['\\b', '\\B', '\\b\\b', '$^']);

  it('`~` matches as re.match does, for every pattern of the corpus it runs, on every subject', () => {
    const wrong: string[] = [];
    let ran = 0;
    for (const [pattern, answers] of Object.entries(corpus.matches)) {
      let re;
      try {
        re = compilePyRegex(pattern);
      } catch {
        continue; // refused in our words: the test above
      }
      ran++;
      const got = corpus.subjects.map((s) => (re.test(s) ? '1' : '0')).join('');
      if (got !== answers['3.11'] && !KNOWN_DIFFERENCES.has(pattern))
        wrong.push(`${JSON.stringify(pattern)}: Python ${answers['3.11']}, ours ${got}`);
    }
    expect(wrong).toEqual([]);
    expect(ran).toBeGreaterThan(100);
  });
});
