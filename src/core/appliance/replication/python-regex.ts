// A replication's `name_regex` is a Python `re` pattern: the middleware checks it with
// `re.compile(f"({regex})$")` (MW/plugins/replication.py:510-514) and zettarepl matches names with
// `re.compile(f"({regex})$").match` (zettarepl/replication/task/name_pattern.py:7-8, Python 3.11 on
// 25.10). JavaScript reads most of that syntax alike; this is where the two differ for what a
// snapshot name regex uses: Python's named groups `(?P<n>…)`/`(?P=n)`, `\A`/`\Z`, identity escapes
// of punctuation (`\-`, which a `u` RegExp refuses). What Python refuses is judged by the `~` filter's
// port of re's parser (query/python-re-syntax.ts), before anything here.

import { createContext, Script, type Context } from 'node:vm';
import { compilePyRegex } from '../query/python.js';
import { checkPythonPattern, PythonReError, UnsupportedByEmulator } from '../query/python-re-syntax.js';

/**
 * The JavaScript source for `(${regex})$` as Python compiles it, to match from the name's start
 * (`re.match`), for a pattern Python compiles: nameRegexTest has checked it with the port of re's
 * parser (query/python-re-syntax.ts), which refuses the rest in Python's words, so nothing here
 * judges the syntax; it only translates what the two engines read differently.
 */
function javascriptSourceOf(regex: string): string {
  const pattern = `(${regex})$`;
  let out = '';
  let inClass = false;
  // Whether MULTILINE holds, for each group open: `(?m:…)` and `(?-m:…)` scope it.
  const multiline = [false];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1]!;
      if (/[0-9]/.test(next)) {
        // An octal escape or a group reference (_parser.py:_escape, _class_escape).
        const octal = (inClass ? /^[0-7]{1,3}/ : /^(?:0[0-7]{0,2}|[0-7]{3})/).exec(pattern.slice(i + 1))?.[0];
        if (octal !== undefined) {
          out += `\\x${parseInt(octal, 8).toString(16).padStart(2, '0')}`;
          i += octal.length;
        } else {
          const digits = /^[0-9]{1,2}/.exec(pattern.slice(i + 1))![0];
          out += `(?:\\${digits})`;
          i += digits.length;
        }
        continue;
      }
      if (next === 'U') {
        // \Uhhhhhhhh; a RegExp without the u flag has no \u{…}: the character's UTF-16 units, as a group.
        const code = parseInt(pattern.slice(i + 2, i + 10), 16);
        out += `(?:${[...String.fromCodePoint(code)].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')})`;
        out = out.replace(/\(\?:(\\u[0-9a-f]{4})\)$/, '$1');
        i += 9;
        continue;
      }
      if (!inClass && next === 'A') out += '^';
      else if (!inClass && next === 'Z') out += '$(?![\\s\\S])';
      else out += `\\${next}`;
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
      multiline.push(multiline.at(-1)!);
      out += `(?<${pattern.slice(i + 4, end)}>`;
      i = end;
      continue;
    }
    const backref = /^\(\?P=([^)]*)\)/.exec(pattern.slice(i));
    if (backref) {
      out += `\\k<${backref[1]}>`;
      i += backref[0].length - 1;
      continue;
    }
    if (pattern.startsWith('(?#', i)) {
      // A comment, to the first `)` (_parser.py:745-751).
      i = pattern.indexOf(')', i);
      continue;
    }
    const scoped = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:/.exec(pattern.slice(i));
    if (scoped) {
      const [on, off = ''] = [scoped[1]!, scoped[2]];
      const m = multiline.at(-1)!;
      multiline.push((m || on.includes('m')) && !off.includes('m'));
      // ASCII and UNICODE are no JavaScript flags: a RegExp without `u` reads \w, \d, \s as ASCII.
      out += `(?${on.replace(/[au]/g, '')}${scoped[2] === undefined ? '' : `-${off}`}:`;
      i += scoped[0].length - 1;
      continue;
    }
    if (c === '(') multiline.push(multiline.at(-1)!);
    else if (c === ')' && multiline.length > 1) multiline.pop();
    // `$` outside MULTILINE is the end or before a newline that ends the name (AT_END).
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
  let linear;
  try {
    linear = compilePyRegex(`(${regex})$`);
  } catch {
    // JavaScript's words when it refuses the pattern too.
    const backtracking = new RegExp(javascriptSourceOf(regex));
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
