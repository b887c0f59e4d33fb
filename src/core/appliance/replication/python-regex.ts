// A replication's `name_regex` is a Python `re` pattern: the middleware checks it with
// `re.compile(f"({regex})$")` (MW/plugins/replication.py:510-514) and zettarepl matches names with
// `re.compile(f"({regex})$").match` (zettarepl/replication/task/name_pattern.py:7-8, Python 3.11 on
// 25.10). JavaScript reads most of that syntax alike; this is where the two differ for what a
// snapshot name regex uses: Python's named groups `(?P<n>…)`/`(?P=n)`, `\A`/`\Z`, identity escapes
// of punctuation (`\-`, which a `u` RegExp refuses), and the escapes and flags Python refuses.

import { createContext, Script, type Context } from 'node:vm';
import { compilePyRegex } from '../query/python.js';
import { checkPythonPattern, PythonReError, UnsupportedByEmulator } from '../query/python-re-syntax.js';

/** Letters Python's `re` knows after a backslash outside a class (sre_parse.py ESCAPES, CATEGORIES). */
const PY_LETTER_ESCAPES = new Set([...'abfnrtvxuUNdDsSwWAbBZ']);
/** Inside a class `\b` is a backspace and `\A`, `\Z`, `\B` are errors. */
const PY_CLASS_LETTER_ESCAPES = new Set([...'abfnrtvxuUNdDsSwW']);

/** A repeat, as Python reads one (`{}` and `{x` are literal text, _parser.py:644-660). */
const REPEAT = /^(?:[*+?]|\{(?:\d+(?:,\d*)?|,\d*)\})/;

/** A group name Python takes (`str.isidentifier`, near enough). */
const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;

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
  // Whether MULTILINE holds, for each group open: `(?m:…)` and `(?-m:…)` scope it.
  const multiline = [false];
  // The capturing groups: how many have opened, which have closed, their names (a reference to an
  // open or unknown group is an error in Python, an empty match in JavaScript).
  const groupOf: (number | undefined)[] = [];
  let groups = 0;
  const closed = new Set<number>();
  const names = new Map<string, number>();
  const refer = (group: number, at: number, what: string): void => {
    if (group > groups) throw new PythonRegexError(`invalid group reference ${what} at position ${at}`);
    if (!closed.has(group)) throw new PythonRegexError(`cannot refer to an open group at position ${at}`);
  };
  const open = (group: number | undefined, m: boolean): void => {
    multiline.push(m);
    groupOf.push(group);
  };
  // Whether the item before is an assertion (`^`, `$`, `\A`, `\Z`, `\b`, `\B`): Python refuses to
  // repeat one ("nothing to repeat", _parser.py:680-682), JavaScript and RE2 repeat it.
  let afterAssertion = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const wasAssertion: boolean = afterAssertion;
    afterAssertion = false;
    if (!inClass && wasAssertion && REPEAT.test(pattern.slice(i, i + 24)))
      throw new PythonRegexError(`nothing to repeat at position ${i}`);
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new PythonRegexError(`bad escape (end of pattern) at position ${i}`);
      if (/[0-9]/.test(next)) {
        // An octal escape or a group reference (_parser.py:_escape, _class_escape).
        const octal = (inClass ? /^[0-7]{1,3}/ : /^(?:0[0-7]{0,2}|[0-7]{3})/).exec(pattern.slice(i + 1))?.[0];
        if (octal !== undefined) {
          const code = parseInt(octal, 8);
          if (code > 0o377)
            throw new PythonRegexError(`octal escape value \\${octal} outside of range 0-0o377 at position ${i}`);
          out += `\\x${code.toString(16).padStart(2, '0')}`;
          i += octal.length;
        } else if (inClass) {
          throw new PythonRegexError(`bad escape \\${next} at position ${i}`);
        } else {
          const digits = /^[0-9]{1,2}/.exec(pattern.slice(i + 1))![0];
          refer(Number(digits), i + 1, digits);
          out += `(?:\\${digits})`;
          i += digits.length;
        }
        continue;
      }
      if (/[A-Za-z]/.test(next)) {
        const known = inClass ? PY_CLASS_LETTER_ESCAPES : PY_LETTER_ESCAPES;
        if (!known.has(next)) throw new PythonRegexError(`bad escape \\${next} at position ${i}`);
        // \xhh, \uhhhh and \Uhhhhhhhh take exactly that many hex digits (_parser.py:_escape).
        const hex = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
        const digits = hex ? (/^[0-9A-Fa-f]*/.exec(pattern.slice(i + 2, i + 2 + hex))?.[0] ?? '') : '';
        if (hex && digits.length < hex)
          throw new PythonRegexError(`incomplete escape \\${next}${digits} at position ${i}`);
        if (next === 'U') {
          const code = parseInt(digits, 16);
          if (code > 0x10ffff) throw new PythonRegexError(`bad escape \\U${digits} at position ${i}`);
          // A RegExp without the u flag has no \u{…}: the character's UTF-16 units, as a group.
          out += `(?:${[...String.fromCodePoint(code)].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')})`;
          out = out.replace(/\(\?:(\\u[0-9a-f]{4})\)$/, '$1');
          i += 1 + hex;
          continue;
        }
        afterAssertion = !inClass && 'AZbB'.includes(next);
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
      const end = pattern.indexOf('>', i);
      const name = end < 0 ? '' : pattern.slice(i + 4, end);
      if (end < 0) throw new PythonRegexError(`missing >, unterminated name at position ${i + 4}`);
      if (!IDENTIFIER.test(name))
        throw new PythonRegexError(`bad character in group name '${name}' at position ${i + 4}`);
      if (names.has(name)) throw new PythonRegexError(`redefinition of group name '${name}' at position ${i + 4}`);
      names.set(name, ++groups);
      open(groups, multiline.at(-1)!);
      out += `(?<${name}>`;
      i = end;
      continue;
    }
    const backref = /^\(\?P=([^)]*)\)/.exec(pattern.slice(i));
    if (backref) {
      const group = names.get(backref[1]!);
      if (group === undefined) throw new PythonRegexError(`unknown group name '${backref[1]}' at position ${i + 4}`);
      refer(group, i, backref[1]!);
      out += `\\k<${backref[1]}>`;
      i += backref[0].length - 1;
      continue;
    }
    if (pattern.startsWith('(?#', i)) {
      // A comment, to the first `)` (_parser.py:745-751).
      const end = pattern.indexOf(')', i);
      if (end < 0) throw new PythonRegexError(`missing ), unterminated comment at position ${i}`);
      afterAssertion = wasAssertion;
      i = end;
      continue;
    }
    // `(?` then a character no extension starts with, `)` among them: an error (_parser.py:_parse's
    // "unknown extension"), where RE2 reads `(?)` as an empty group of no flags.
    if (pattern.startsWith('(?', i) && !/^[P:#=!<(>\-aiLmsuxt]/.test(pattern[i + 2] ?? ''))
      throw new PythonRegexError(`unknown extension ?${pattern[i + 2] ?? ''} at position ${i + 1}`);
    if (pattern.startsWith('(?P', i) && !/^[<=]/.test(pattern[i + 3] ?? ''))
      throw new PythonRegexError(`unknown extension ?P${pattern[i + 3] ?? ''} at position ${i + 1}`);
    // `(?<` is a lookbehind or an error: Python 3.11 names groups only as `(?P<name>…)`.
    if (pattern.startsWith('(?<', i) && !/^[=!]/.test(pattern[i + 3] ?? ''))
      throw new PythonRegexError(`unknown extension ?<${pattern[i + 3] ?? ''} at position ${i + 1}`);
    // Global flags anywhere but the start are an error since Python 3.11; the `(` before the
    // regex means they are never at the start.
    if (/^\(\?[aiLmsux]+\)/.test(pattern.slice(i)))
      throw new PythonRegexError(`global flags not at the start of the expression at position ${i}`);
    const scoped = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:/.exec(pattern.slice(i));
    if (scoped) {
      const [on, off = ''] = [scoped[1]!, scoped[2]];
      // The flags a str pattern takes in a group (_parser.py:_parse_flags).
      const bad = /[^aimsux]/.exec(on + off);
      if (bad) throw new PythonRegexError(`unknown flag at position ${i + 2}`);
      if (/[au]/.test(off)) throw new PythonRegexError(`bad inline flags: cannot turn off flags 'a', 'u' and 'L'`);
      if (on.includes('a') && on.includes('u'))
        throw new PythonRegexError(`bad inline flags: flags 'a', 'u' and 'L' are incompatible`);
      const m = multiline.at(-1)!;
      open(undefined, (m || on.includes('m')) && !off.includes('m'));
      // ASCII and UNICODE are no JavaScript flags: a RegExp without `u` reads \w, \d, \s as ASCII.
      out += `(?${on.replace(/[au]/g, '')}${scoped[2] === undefined ? '' : `-${off}`}:`;
      i += scoped[0].length - 1;
      continue;
    }
    if (c === '(') open(pattern[i + 1] === '?' ? undefined : ++groups, multiline.at(-1)!);
    else if (c === ')' && multiline.length > 1) {
      multiline.pop();
      const group = groupOf.pop();
      if (group !== undefined) closed.add(group);
    }
    // `$` outside MULTILINE is the end or before a newline that ends the name (AT_END).
    afterAssertion = c === '^' || c === '$';
    if (c === '$' && !multiline.at(-1)) {
      out += '(?=\\n?$)';
      continue;
    }
    // `{,n}` and `{,}` repeat from 0 (_parser.py:644-672); JavaScript reads them as literal text.
    const from0 = c === '{' ? /^\{,(\d*)\}/.exec(pattern.slice(i)) : null;
    if (from0) {
      out += `{0,${from0[1]}}`;
      i += from0[0].length - 1;
      continue;
    }
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
  // Python's refusals, in its words, by the `~` filter's port of re's parser (query/python-re-syntax.ts).
  // What it cannot read, a named character `\N{…}`, is refused too: JavaScript's engine below would
  // read `\N{DIGIT ONE}` as the text `N{DIGIT ONE}` and match other names than Python does.
  try {
    checkPythonPattern(`(${regex})$`);
  } catch (err) {
    if (err instanceof PythonReError || err instanceof UnsupportedByEmulator) throw new Error(err.message);
    throw err;
  }
  const source = javascriptSourceOf(regex);
  let linear;
  try {
    linear = compilePyRegex(`(${regex})$`);
  } catch {
    // JavaScript's words when it refuses the pattern too.
    const backtracking = new RegExp(source);
    return (name) => boundedTest(backtracking, regex, name);
  }
  return (name) => linear.test(name);
}

/**
 * How long one name may take on JavaScript's backtracking engine. A name is at most 255
 * characters: a pattern that has not matched one in this long is one that backtracks without end,
 * `(?P<x>a)(a+)+b(?P=x)` say (a reference sends it here, and so does a pattern over RE2's size or
 * repeat limits), on which Python's engine would not return either.
 */
const BACKTRACKING_BUDGET_MS = 1000;
let sandbox: { context: Context; script: Script } | undefined;

/**
 * `re.test(name)`, stopped after BACKTRACKING_BUDGET_MS: a script's timeout is the one way to
 * interrupt a RegExp in V8, and without it one such name holds the emulator (every connection
 * waits on one event loop) or `stor replication status` for hours.
 */
function boundedTest(re: RegExp, regex: string, name: string): boolean {
  sandbox ??= { context: createContext({ re: undefined, name: '' }), script: new Script('re.test(name)') };
  sandbox.context.re = re;
  sandbox.context.name = name;
  try {
    return sandbox.script.runInContext(sandbox.context, { timeout: BACKTRACKING_BUDGET_MS }) as boolean;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
    throw new Error(
      `name_regex ${JSON.stringify(regex)} backtracks without end on ${JSON.stringify(name)} (Python's re would too); ` +
        'a pattern without references or lookaround is matched in linear time',
    );
  } finally {
    sandbox.context.re = undefined;
  }
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
