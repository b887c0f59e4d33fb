// A replication's `name_regex` is a Python `re` pattern: the middleware checks it with
// `re.compile(f"({regex})$")` (MW/plugins/replication.py:510-514) and zettarepl matches names with
// `re.compile(f"({regex})$").match` (zettarepl/replication/task/name_pattern.py:7-8, Python 3.11 on
// 25.10). JavaScript reads most of that syntax alike; this is where the two differ for what a
// snapshot name regex uses: Python's named groups `(?P<n>…)`/`(?P=n)`, `\A`/`\Z`, identity escapes
// of punctuation (`\-`, which a `u` RegExp refuses), and the escapes and flags Python refuses.

import { compilePyRegex } from '../query/python.js';

/** Letters Python's `re` knows after a backslash outside a class (sre_parse.py ESCAPES, CATEGORIES). */
const PY_LETTER_ESCAPES = new Set([...'abfnrtvxuUNdDsSwWAbBZ']);
/** Inside a class `\b` is a backspace and `\A`, `\Z`, `\B` are errors. */
const PY_CLASS_LETTER_ESCAPES = new Set([...'abfnrtvxuUNdDsSwW']);

/** Python's `re.error` text: the message and where in the compiled pattern it is. */
class PythonRegexError extends Error {}

/**
 * The JavaScript source for `(${regex})$` as Python compiles it, to match from the name's start
 * (`re.match`); throws Python's own words for the errors it finds that JavaScript would not.
 * Positions count in the compiled pattern, as Python reports them.
 */
function javascriptSourceOf(regex: string): string {
  const pattern = `(${regex})$`;
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new PythonRegexError(`bad escape (end of pattern) at position ${i}`);
      if (/[A-Za-z]/.test(next)) {
        const known = inClass ? PY_CLASS_LETTER_ESCAPES : PY_LETTER_ESCAPES;
        if (!known.has(next)) throw new PythonRegexError(`bad escape \\${next} at position ${i}`);
        if (!inClass && next === 'A') out += '^';
        else if (!inClass && next === 'Z') out += '$(?![\\s\\S])';
        else out += `\\${next}`;
      } else out += `\\${next}`;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A `]` first in the class (after a `^`) is a literal one, in both.
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    const backref = /^\(\?P=(\w+)\)/.exec(pattern.slice(i));
    if (backref) {
      out += `\\k<${backref[1]}>`;
      i += backref[0].length - 1;
      continue;
    }
    // Global flags anywhere but the start are an error since Python 3.11; the `(` before the
    // regex means they are never at the start.
    if (/^\(\?[aiLmsux]+\)/.test(pattern.slice(i)))
      throw new PythonRegexError(`global flags not at the start of the expression at position ${i}`);
    out += c;
  }
  return `^(?:${out})`;
}

/**
 * A test of snapshot names against `name_regex`, answering as zettarepl's
 * `re.compile(f"({regex})$").match` does (name_pattern.py:7-8), in time linear in the name wherever
 * RE2 reads the pattern (the `~` filter's engine, query/python.ts). Python's engine and
 * JavaScript's backtrack: `(a+)+` against a long name that does not match takes them hours, which
 * would hold the whole emulator (every connection waits on one event loop), or a command reading a
 * broken or hostile appliance's task. Backreferences and lookaround, which Python takes and RE2
 * does not, still go to JavaScript's engine. Throws Python's words for a pattern Python refuses (or
 * JavaScript's, where this file does not know Python's).
 */
export function nameRegexTest(regex: string): (name: string) => boolean {
  const source = javascriptSourceOf(regex);
  let linear;
  try {
    linear = compilePyRegex(`(${regex})$`);
  } catch {
    // JavaScript's words when it refuses the pattern too.
    const backtracking = new RegExp(source);
    return (name) => backtracking.test(name);
  }
  return (name) => linear.test(name);
}

/** `re.compile(f"({regex})$")`'s error text, or null when it compiles (MW/plugins/replication.py:510-514). */
export function pythonNameRegexError(regex: string): string | null {
  try {
    nameRegexTest(regex);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
