/**
 * Python semantics for the query engine (see `../query.ts`): `repr()`/`str()`, `==`, ordering,
 * `in`, `casefold()`, `re.match` (with Python-only regex syntax translated) and
 * `datetime.fromisoformat`.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { foldString } from '../../python-casefold.js';
import { ERRNO, rpcErrors, type RpcError } from '../../errors.js';
import { pyRepr } from '../../python-repr.js';
import { checkPythonPattern, PythonReError, UnsupportedByEmulator, type PythonRelease } from './python-re-syntax.js';
import { MAX_REGEX_SIZE, regexSizeEstimate } from './regex-size.js';

export { pyRepr };

// ---------------------------------------------------------------------------------------------
// Python-flavoured helpers
// ---------------------------------------------------------------------------------------------

export function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Python `str()`: strings as they are, everything else as `repr()`. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

export function isNumeric(v: unknown): v is number | boolean {
  return typeof v === 'number' || typeof v === 'boolean';
}

/** Python `==` on JSON values (`True == 1`, lists and dicts by value). */
export function pyEq(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (a === null || b === null) return a === b;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
  }
  if (isDict(a) && isDict(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && pyEq(a[k], b[k]));
  }
  return a === b;
}

function cmpCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** Python ordering (`<`): -1/0/1, or undefined where Python raises TypeError. */
export function pyCompare(a: unknown, b: unknown): number | undefined {
  if (isNumeric(a) && isNumeric(b)) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return cmpCodePoints(a, b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (!pyEq(a[i], b[i])) return pyCompare(a[i], b[i]);
    }
    return Math.sign(a.length - b.length);
  }
  return undefined;
}

/** Python `operator.contains(container, item)`; undefined where Python raises TypeError. */
export function pyContains(container: unknown, item: unknown): boolean | undefined {
  if (Array.isArray(container)) return container.some((x) => pyEq(x, item));
  if (typeof container === 'string') return typeof item === 'string' ? container.includes(item) : undefined;
  if (isDict(container)) {
    if (typeof item === 'string') return Object.hasOwn(container, item);
    return isDict(item) || Array.isArray(item) ? undefined : false;
  }
  return undefined;
}

/** Upstream `casefold()`: strings and lists of strings; other values are left alone. */
export function casefold(v: unknown): unknown {
  if (typeof v === 'string') return foldString(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? foldString(x) : x));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Regular expressions (`~`: Python re.match, anchored at the start)
// ---------------------------------------------------------------------------------------------

// A pattern comes from any logged-in caller. JavaScript's backtracking engine would let one
// pattern such as `([A-Z_]+)+x$` hold the event loop for minutes and every client with it, so
// `~` runs on RE2's linear-time engine (re2js). The price: Python syntax RE2 lacks (backreferences,
// lookaround) is refused when the filter is validated, with a clear -32602, instead of matching.
const regexCache = new Map<string, RE2JS>();
/**
 * Instructions held by the cache: bounded too, or 500 patterns at MAX_REGEX_SIZE (a few MB each
 * with Unicode classes) would hold gigabytes.
 */
const CACHE_MAX_INSTRUCTIONS = 10 * MAX_REGEX_SIZE;
let cachedInstructions = 0;

// re2js is 270 KB of code that only `~` filters need: loaded on the first one, not by every
// command that opens the embedded appliance (the bundle leaves a call through this alias alone).
const loadCommonJs = createRequire(import.meta.url);
let re2: typeof RE2JS | undefined;
const engine = (): typeof RE2JS => (re2 ??= (loadCommonJs('re2js') as typeof import('re2js')).RE2JS);

/**
 * A Python pattern as RE2 takes it, for a pattern Python compiles (checkPythonPattern first): its
 * global inline flags apart, and the syntax the two read differently rewritten (Lib/re/_parser.py,
 * Python 3.11):
 * - `$` outside MULTILINE is the end or before a newline that ends the text (AT_END); RE2's is the
 *   end only, so it becomes `\n?\z`. Consuming that newline differs only where the pattern goes on
 *   to match a newline after `$`.
 * - `\Z` is RE2's `\z`; `\uXXXX` and `\UXXXXXXXX` are `\x{…}` (RE2 has no `\u`); `\b` in a set
 *   is a backspace; octal escapes are Python's (`\0`, `\0oo`, `\ooo`), while `\12` is a reference
 *   to group 12, which RE2 would read as octal; an escaped character that is neither a letter, a
 *   digit nor ASCII punctuation is itself.
 * - `{,n}` and `{,}` repeat from 0 (_parser.py:644-672); RE2 reads them as literal text. A `{` that
 *   is no repeat is escaped.
 * - a `[` inside a set is itself; RE2 would read `[[:digit:]]` as a POSIX class.
 * - `(?#…)` is a comment, up to the first `)`; `(?P<name>…)` a group (its name is not used here).
 * - VERBOSE (`x`, global or scoped) drops whitespace and `#` comments outside sets
 *   (_parser.py:_parse's `if verbose`); RE2 has no such flag.
 * `unsupported` names a construct Python reads that RE2 cannot run, found while rewriting.
 */
/**
 * `\w`, `\d`, `\s` and their complements as a str pattern reads them without ASCII (Python's
 * Objects/unicodectype.c: `\w` is str.isalnum() or `_`, `\d` a decimal digit (Nd), `\s`
 * str.isspace()); RE2's are ASCII. In a set, RE2 cannot take the complement of a union: `\W`
 * and `\S` there stay ASCII (docs/RELEASES.md).
 */
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x{1c}-\\x{1f} \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}';
const UNICODE_CLASSES: Record<string, { alone: string; inClass: string } | undefined> = {
  w: { alone: '[\\p{L}\\p{N}_]', inClass: '\\p{L}\\p{N}_' },
  W: { alone: '[^\\p{L}\\p{N}_]', inClass: '\\W' },
  d: { alone: '\\p{Nd}', inClass: '\\p{Nd}' },
  D: { alone: '\\P{Nd}', inClass: '\\P{Nd}' },
  s: { alone: `[${PY_SPACE}]`, inClass: PY_SPACE },
  S: { alone: `[^${PY_SPACE}]`, inClass: '\\S' },
};

function toRe2(pattern: string): { src: string; flags: { i: boolean; m: boolean; s: boolean }; unsupported?: string } {
  const rest = pattern;
  const flags = { i: false, m: false, s: false };
  let unsupported: string | undefined;
  let src = '';
  let inClass = false;
  // Whether MULTILINE and VERBOSE hold, for each group open; `(?m:…)` and `(?-x:…)` scope them.
  const multiline = [false];
  const verbose = [false];
  // Whether ASCII (`a`) holds: else `\w`, `\d`, `\s` are Unicode's, as a str pattern's are.
  const ascii = [false];
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '\\') {
      const next = rest[i + 1] ?? '';
      const hex = next === 'u' ? 4 : next === 'U' ? 8 : 0;
      const digits = hex ? rest.slice(i + 2, i + 2 + hex) : '';
      const unicode = !ascii.at(-1) && UNICODE_CLASSES[next];
      if (unicode) src += inClass ? unicode.inClass : unicode.alone;
      else if (next === 'Z' && !inClass) src += '\\z';
      else if (next === 'b' && inClass) src += '\\x08';
      else if (hex && digits.length === hex && /^[0-9A-Fa-f]+$/.test(digits)) {
        src += `\\x{${digits}}`;
        i += hex;
      } else if (/[0-9]/.test(next)) {
        // _parser.py _escape / _class_escape: an octal escape, else a group reference.
        const octal = (inClass ? /^[0-7]{1,3}/ : /^(?:0[0-7]{0,2}|[0-7]{3})/).exec(rest.slice(i + 1))?.[0];
        if (octal !== undefined) {
          src += `\\x{${parseInt(octal, 8).toString(16)}}`;
          i += octal.length;
          continue;
        }
        unsupported ??= 'a backreference';
        src += c + next;
      } else if (/[A-Za-z]/.test(next) || /[!-/:-@[-`{-~]/.test(next)) src += c + next;
      else {
        // The whole code point, two UTF-16 units past the BMP (`\😀` is 😀).
        const cp = rest.codePointAt(i + 1)!;
        src += `\\x{${cp.toString(16)}}`;
        if (cp > 0xffff) i++;
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      src += c === '[' ? '\\[' : c;
      continue;
    }
    if (verbose.at(-1)) {
      if (' \t\n\r\v\f'.includes(c)) continue;
      if (c === '#') {
        const end = rest.indexOf('\n', i);
        i = end < 0 ? rest.length : end;
        continue;
      }
    }
    if (c === '[') {
      inClass = true;
      src += c;
      // A `]` first in the set (after a `^`) is a member, in both.
      if (rest[i + 1] === '^') src += rest[++i];
      if (rest[i + 1] === ']') src += rest[++i];
      continue;
    }
    if (c === '(') {
      if (rest.startsWith('(?#', i)) {
        const end = rest.indexOf(')', i);
        if (end >= 0) {
          i = end;
          continue;
        }
      }
      // Global flags: Python takes them only at the start (checkPythonPattern).
      const global = /^\(\?([a-zA-Z]+)\)/.exec(rest.slice(i));
      if (global) {
        const f = global[1]!;
        flags.i ||= f.includes('i');
        flags.m ||= f.includes('m');
        flags.s ||= f.includes('s');
        if (f.includes('m')) multiline[0] = true;
        if (f.includes('x')) verbose[0] = true;
        if (f.includes('a')) ascii[0] = true;
        if (f.includes('t')) unsupported ??= 'the TEMPLATE flag';
        i += global[0].length - 1;
        continue;
      }
      const scoped = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:/.exec(rest.slice(i));
      const m = multiline.at(-1)!;
      const v = verbose.at(-1)!;
      const on = scoped?.[1] ?? '';
      const off = scoped?.[2] ?? '';
      multiline.push((m || on.includes('m')) && !off.includes('m'));
      verbose.push((v || on.includes('x')) && !off.includes('x'));
      ascii.push(on.includes('a') || (ascii.at(-1)! && !on.includes('u')));
      if (scoped) {
        // ASCII (`a`) and UNICODE (`u`, a str pattern's default) are not RE2 flags; RE2's classes
        // are ASCII already. VERBOSE is applied here.
        const on2 = on.replace(/[aux]/g, '');
        const off2 = off.replace(/x/g, '');
        src += `(?${on2}${off2 ? `-${off2}` : ''}:`;
        i += scoped[0].length - 1;
        continue;
      }
      const named = /^\(\?P<[^>]*>/.exec(rest.slice(i));
      if (named) {
        src += '(';
        i += named[0].length - 1;
        continue;
      }
      if (/^\(\?(?:[=!]|<[=!])/.test(rest.slice(i))) unsupported ??= 'lookaround';
      else if (rest.startsWith('(?>', i)) unsupported ??= 'an atomic group';
      else if (rest.startsWith('(?(', i)) unsupported ??= 'a conditional';
      else if (rest.startsWith('(?P=', i)) unsupported ??= 'a backreference';
      src += c;
      continue;
    }
    if (c === ')') {
      if (multiline.length > 1) {
        multiline.pop();
        verbose.pop();
        ascii.pop();
      }
      src += c;
      continue;
    }
    if (c === '$' && !multiline.at(-1)) {
      src += '(?:\\n?\\z)';
      continue;
    }
    if (c === '{') {
      // A repeat only as Python reads one, digits and all together (_parser.py:644-660): `{,n}`
      // from 0, while `{}`, `{x` and, in VERBOSE, `{1, 2}` are literal text.
      const repeat = /^\{(\d*)(,\d*)?\}/.exec(rest.slice(i));
      if (repeat && repeat[0] !== '{}') {
        // int() of each bound: `{01,02}` is `{1,2}`, which RE2 would read as literal text.
        const min = repeat[1] ? String(Number(repeat[1])) : repeat[2] ? '0' : '';
        const max = repeat[2] === undefined ? '' : repeat[2] === ',' ? ',' : `,${Number(repeat[2].slice(1))}`;
        src += `{${min}${max}}`;
        i += repeat[0].length - 1;
      } else src += '\\{';
      continue;
    }
    src += c;
  }
  return { src, flags, ...(unsupported === undefined ? {} : { unsupported }) };
}

/** The refusal of a pattern (or of a query's patterns together) whose program would pass MAX_REGEX_SIZE. */
export const regexTooLarge = (pattern: string) =>
  `${pattern}: regular expression too large (its repetitions expand to more than ${MAX_REGEX_SIZE} instructions)`;
export const queryRegexTooLarge = (pattern: string) =>
  `${pattern}: regular expression too large (with the query's other \`~\` patterns it expands to more than ${MAX_REGEX_SIZE} instructions)`;

/**
 * The estimated compiled size of a `~` pattern (regexSizeEstimate), counted whether or not it is
 * cached now: a query's patterns must fit the cache together, or evaluating it item by item would
 * compile them again and again.
 */
export function pyRegexSize(pattern: string): number {
  return regexSizeEstimate(toRe2(pattern).src);
}

/**
 * Refuses, with re.error's text (or OverflowError's), a pattern Python's `re` does not compile:
 * the middleware's `~` is `re.match(y, x or '')` (MW/src/middlewared/middlewared/utils/
 * filter_list.py:157 at TS-25.10.1, MW/src/middlewared/middlewared/api/base/validators/
 * filter_ops.py:32 at TS-26.0.0-BETA.3), which raises it.
 */
export function checkPyRegex(pattern: string): void {
  try {
    checkPythonPattern(pattern);
  } catch (err) {
    if (err instanceof PythonReError) throw new Error(`${pattern}: ${err.message}`);
    if (err instanceof UnsupportedByEmulator) throw new Error(`${pattern}: ${NOT_SUPPORTED} (${err.message})`);
    throw err;
  }
}

const NOT_SUPPORTED = 'regular expression not supported by the emulator';
/** What RE2, the linear-time engine `~` runs on, lacks of Python's `re` (docs/RELEASES.md). */
const RE2_LACKS =
  'it runs `~` on RE2, a linear-time engine without backreferences, lookaround, conditionals, atomic groups, possessive repeats or repeats past 1000';

export function compilePyRegex(pattern: string): RE2JS {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  checkPyRegex(pattern);
  const RE2 = engine();
  const { src, flags: f, unsupported } = toRe2(pattern);
  if (unsupported !== undefined) throw new Error(`${pattern}: ${NOT_SUPPORTED} (${unsupported}); ${RE2_LACKS}`);
  const flags = (f.i ? RE2.CASE_INSENSITIVE : 0) | (f.m ? RE2.MULTILINE : 0) | (f.s ? RE2.DOTALL : 0);
  // Judged before compiling: compiling the pattern is itself the cost being bounded.
  if (regexSizeEstimate(src) > MAX_REGEX_SIZE) throw new Error(regexTooLarge(pattern));
  let re: RE2JS;
  try {
    // The pattern alone first, so that a stray `)` is refused rather than closing the wrapper.
    RE2.compile(src, flags);
    re = RE2.compile(`\\A(?:${src})`, flags);
  } catch (err) {
    throw new Error(`${pattern}: ${NOT_SUPPORTED} (${err instanceof Error ? err.message : String(err)}); ${RE2_LACKS}`);
  }
  if (regexCache.size > 500 || cachedInstructions + re.programSize() > CACHE_MAX_INSTRUCTIONS) {
    regexCache.clear();
    cachedInstructions = 0;
  }
  regexCache.set(pattern, re);
  cachedInstructions += re.programSize();
  return re;
}

/**
 * A `~` pattern that Python 3.11 or 3.13 refuses, met on an item: what each says (null: it
 * compiles). The query engine does not know the release; the dispatcher (rpc/dispatcher.ts)
 * words it as the release's Python does (pythonPatternException).
 */
export class PatternRefusal extends Error {
  constructor(
    readonly pattern: string,
    readonly answers: Readonly<Record<PythonRelease, string | null>>,
  ) {
    super(`${pattern}: refused by Python's re`);
  }
}

const refusals = new Map<string, PatternRefusal | null>();

function pythonAnswer(pattern: string, version: PythonRelease): string | null {
  try {
    checkPythonPattern(pattern, version);
    return null;
  } catch (err) {
    if (err instanceof PythonReError) return err.message;
    if (err instanceof UnsupportedByEmulator) return null;
    throw err;
  }
}

function refusalOf(pattern: string): PatternRefusal | null {
  if (regexCache.has(pattern)) return null;
  let known = refusals.get(pattern);
  if (known === undefined) {
    const answers = { '3.11': pythonAnswer(pattern, '3.11'), '3.13': pythonAnswer(pattern, '3.13') };
    known = answers['3.11'] === null && answers['3.13'] === null ? null : new PatternRefusal(pattern, answers);
    if (refusals.size > 500) refusals.clear();
    refusals.set(pattern, known);
  }
  return known;
}

/** Whether Python 3.11 or 3.13 refuses the pattern (re.error, or OverflowError at compile). */
export const pythonRefuses = (pattern: string): boolean => refusalOf(pattern) !== null;

/**
 * The exception `re.match(y, …)` raises for a pattern the release's Python refuses, as any uncaught
 * exception in a method reaches the client: re.error, whose class is `error` in 3.11 and
 * `PatternError` in 3.13 (Lib/re/_constants.py, `error = PatternError` kept as an alias), or
 * _parser.py's OverflowError for a repeat count past MAXREPEAT; `str()` is its text, its one argument
 * that text. A pattern the release's Python compiles but the other refuses is not run: the
 * emulator's own -32602, as for other patterns it cannot run.
 */
export function pythonPatternException(refusal: PatternRefusal, python: PythonRelease): RpcError {
  const text = refusal.answers[python];
  if (text === null)
    return rpcErrors.validation([
      [
        'filters',
        `Value error, ${refusal.pattern}: ${NOT_SUPPORTED} (Python 3.11 and 3.13 read it differently)`,
        ERRNO.EINVAL,
      ],
    ]);
  const cls =
    text === 'the repetition number is too large' ? 'OverflowError' : python === '3.11' ? 'error' : 'PatternError';
  return rpcErrors.exception(cls, text, `${cls}(${pyRepr(text)})`);
}

/**
 * `re.match(y, x or '')` (TS-25.10.1 MW/utils/filter_list.py:153-157; TS-26.0.0-BETA.3
 * MW/api/base/validators/filter_ops.py:29-32): the pattern is compiled first, whatever the field
 * holds, so a pattern Python refuses raises only when a filter reaches an item; the filter
 * validators never compile it (TS-25.10.1 filter_list.py:205-262, TS-26.0.0-BETA.3
 * validators/filters.py:12-70), and a query that reaches no item answers.
 */
export function opRegex(x: unknown, y: unknown): boolean {
  const refused = typeof y === 'string' ? refusalOf(y) : null;
  if (refused) throw refused;
  // re.match(y, x or ""): falsy fields (None, "", 0, False, [], {}) become "".
  const falsy =
    x === null ||
    x === false ||
    x === 0 ||
    x === '' ||
    (Array.isArray(x) && x.length === 0) ||
    (isDict(x) && Object.keys(x).length === 0);
  const subject = falsy ? '' : x;
  if (typeof subject !== 'string' || typeof y !== 'string') return false;
  // Validated (and so compiled) with the filters: cannot throw here.
  return compilePyRegex(y).test(subject);
}

// ---------------------------------------------------------------------------------------------
// ISO-8601 timestamps (`<field>.$date` filters)
// ---------------------------------------------------------------------------------------------

const ISO_RE =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?)?(?:(Z|z)|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2})(?:\.(\d{1,6}))?)?)?)?$/;

/** Python `datetime.fromisoformat` for the usual forms; naive times are taken as UTC. Milliseconds or null. */
export function parseIsoTimestamp(s: string): number | null {
  const m = ISO_RE.exec(s);
  if (!m) return null;
  const num = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]));
  const [year, month, day, hour, minute, second] = [num(1), num(2), num(3), num(4), num(5), num(6)];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(base);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1 || year < 1) return null;
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7].slice(0, 6)}`) * 1000;
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = num(10);
    const om = num(11);
    const os = num(12) + (m[13] === undefined ? 0 : Number(`0.${m[13]}`));
    if (oh > 23 || om > 59 || os >= 60) return null;
    offset = (m[9] === '-' ? -1 : 1) * ((oh * 60 + om) * 60 + os) * 1000;
  }
  return base + fraction - offset;
}

export function timestampOf(v: unknown): unknown {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return parseIsoTimestamp(v) ?? v;
  return v;
}
