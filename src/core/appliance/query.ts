/**
 * The query-filters / query-options engine behind every `*.query` method of the emulated appliance
 * (facts §9; upstream `MW/utils/filter_list.py`, `MW/api/base/validators/{filters,options,filter_ops}.py`,
 * `MW/api/v25_10_1/common.py`).
 *
 * Validation errors are built the way pydantic reports them for `QueryArgs`: attribute `filters` or
 * `options[.<field>]`, custom-validator messages prefixed `Value error, `, all gathered in one
 * -32602 ValidationErrors.
 *
 * Where upstream would crash with a Python TypeError while evaluating a filter (comparing `None`
 * with an int, `startswith` on a number, sorting `None` next to a string, ...), this engine does
 * not throw: the condition does not match, and in sorting nulls count as the smallest value.
 */
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';

export type QueryFilters = unknown[];

export interface QueryOptions {
  extra?: Record<string, unknown>;
  order_by?: string[];
  select?: (string | [string, string])[];
  count?: boolean;
  get?: boolean;
  offset?: number;
  limit?: number;
  force_sql_filters?: boolean;
}

/** Upper bound of `options.limit` (`MAX_LIMIT`). */
export const QUERY_MAX_LIMIT = 10000;
/** Deepest OR nesting accepted (`MAX_FILTERS_DEPTH`). */
const MAX_FILTERS_DEPTH = 3;
const TIMESTAMP_DESIGNATOR = '.$date';
const NULLS_FIRST = 'nulls_first:';
const NULLS_LAST = 'nulls_last:';
const REVERSE_CHAR = '-';

const OPS = new Set(['=', '!=', '>', '>=', '<', '<=', '~', 'in', 'nin', 'rin', 'rnin', '^', '!^', '$', '!$']);
const TIMESTAMP_OPS = new Set(['=', '!=', '>', '>=', '<', '<=']);

/** A key that is absent (upstream `undefined` / `MatchNotFound` sentinels). */
const MISSING: unique symbol = Symbol('missing');

// ---------------------------------------------------------------------------------------------
// Python-flavoured helpers
// ---------------------------------------------------------------------------------------------

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function ownGet(obj: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(obj, key)) return MISSING;
  const v = obj[key];
  return v === undefined ? MISSING : v;
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Python `repr()` of a JSON value. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan';
  if (typeof v === 'string') return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Python `str()`: strings as they are, everything else as `repr()`. */
function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

function isNumeric(v: unknown): v is number | boolean {
  return typeof v === 'number' || typeof v === 'boolean';
}

/** Python `==` on JSON values (`True == 1`, lists and dicts by value). */
function pyEq(a: unknown, b: unknown): boolean {
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
function pyCompare(a: unknown, b: unknown): number | undefined {
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
function pyContains(container: unknown, item: unknown): boolean | undefined {
  if (Array.isArray(container)) return container.some((x) => pyEq(x, item));
  if (typeof container === 'string') return typeof item === 'string' ? container.includes(item) : undefined;
  if (isDict(container)) {
    if (typeof item === 'string') return Object.hasOwn(container, item);
    return isDict(item) || Array.isArray(item) ? undefined : false;
  }
  return undefined;
}

function foldString(s: string): string {
  // Close to Python's str.casefold() (ß → ss, ſ → s) for the strings that matter here.
  return s.toUpperCase().toLowerCase();
}

/** Upstream `casefold()`: strings and lists of strings; other values are left alone. */
function casefold(v: unknown): unknown {
  if (typeof v === 'string') return foldString(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? foldString(x) : x));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Regular expressions (`~`: Python re.match, anchored at the start)
// ---------------------------------------------------------------------------------------------

const regexCache = new Map<string, RegExp | null>();

/** Translates the common Python-only regex syntax, then compiles a sticky (start-anchored) RegExp. */
function compilePyRegex(pattern: string): RegExp | null {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let flags = 'y';
  let src = pattern;
  const inline = /^\(\?([aiLmsux]+)\)/.exec(src);
  if (inline) {
    const f = inline[1]!;
    if (f.includes('i')) flags += 'i';
    if (f.includes('m')) flags += 'm';
    if (f.includes('s')) flags += 's';
    src = src.slice(inline[0].length);
  }
  let out = '';
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length) {
      const next = src[i + 1]!;
      if (next === 'A') out += '^';
      else if (next === 'Z') out += '(?![\\s\\S])';
      else out += ch + next;
      i++;
    } else if (src.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
    } else if (src.startsWith('(?P=', i)) {
      const end = src.indexOf(')', i);
      if (end < 0) {
        out += src.slice(i);
        break;
      }
      out += `\\k<${src.slice(i + 4, end)}>`;
      i = end;
    } else {
      out += ch;
    }
  }
  let re: RegExp | null;
  try {
    re = new RegExp(out, flags);
  } catch {
    re = null;
  }
  if (regexCache.size > 500) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

function opRegex(x: unknown, y: unknown): boolean {
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
  const re = compilePyRegex(y);
  if (re === null) return false;
  re.lastIndex = 0;
  return re.test(subject);
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

function timestampOf(v: unknown): unknown {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return parseIsoTimestamp(v) ?? v;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/** Splits `a.b.c` into `a` and `b.c`; `\.` is a literal dot. */
function partition(s: string): [string, string] {
  let rv = '';
  for (;;) {
    const i = s.indexOf('.');
    if (i < 0) return [rv + s, ''];
    const left = s.slice(0, i);
    const right = s.slice(i + 1);
    if (left.endsWith('\\')) {
      rv += `${left.slice(0, -1)}.`;
      s = right;
    } else {
      return [rv + left, right];
    }
  }
}

type GetResult =
  | { kind: 'value'; value: unknown }
  | { kind: 'wildcard'; list: unknown[]; rest: string }
  | { kind: 'error' };

/** Upstream `get_impl`: a list index past the end gives null; scalars stop the descent. */
function getImpl(obj: unknown, path: string): GetResult {
  let right = path;
  let cur: unknown = obj;
  while (right) {
    let left: string;
    [left, right] = partition(right);
    if (isDict(cur)) {
      cur = ownGet(cur, left);
    } else if (Array.isArray(cur)) {
      if (!/^[0-9]+$/.test(left)) {
        if (left === '*') return { kind: 'wildcard', list: cur, rest: right };
        return { kind: 'error' };
      }
      const idx = Number(left);
      cur = idx < cur.length ? (cur[idx] === undefined ? null : cur[idx]) : null;
    }
  }
  return { kind: 'value', value: cur };
}

/** Upstream `get`: the value at a path, null when absent. */
function getValue(obj: unknown, path: string): unknown {
  const r = getImpl(obj, path);
  if (r.kind === 'wildcard') return r.list;
  if (r.kind === 'error' || r.value === MISSING) return null;
  return r.value;
}

// ---------------------------------------------------------------------------------------------
// Filter validation
// ---------------------------------------------------------------------------------------------

class FilterValueError extends Error {}

function validateFilters(filters: unknown[], depth: number): void {
  if (depth > MAX_FILTERS_DEPTH) throw new FilterValueError('query-filters max recursion depth exceeded');

  for (const f of filters) {
    if (!Array.isArray(f)) throw new FilterValueError(`Invalid filter ${pyRepr(f)}`);
    if (f.length === 2) {
      const [op, value] = f as [unknown, unknown];
      if (op !== 'OR') throw new FilterValueError(`Invalid operation: ${pyStr(op)}`);
      if (!Array.isArray(value)) {
        if (!value) throw new FilterValueError('OR filter requires at least one branch.');
        throw new FilterValueError(`Invalid filter ${pyRepr(f)}`);
      }
      if (value.length === 0) throw new FilterValueError('OR filter requires at least one branch.');
      for (const branch of value) {
        if (!Array.isArray(branch) || branch.length === 0) throw new FilterValueError(`Invalid filter ${pyRepr(branch)}`);
        if (Array.isArray(branch[0])) validateFilters(branch, depth + 1);
        else validateFilters([branch], depth + 1);
      }
      continue;
    } else if (f.length !== 3) {
      throw new FilterValueError(`Invalid filter ${pyRepr(f)}`);
    }

    const [field, rawOp, value] = f as [unknown, unknown, unknown];
    if (typeof rawOp !== 'string' || rawOp === '') throw new FilterValueError(`Invalid operation: ${pyStr(rawOp)}`);
    let op = rawOp;
    if (op[0] === 'C') {
      op = op.slice(1);
      if (op === '~') throw new FilterValueError(`Invalid case-insensitive operation: ${rawOp}`);
    }
    if (!OPS.has(op)) throw new FilterValueError(`Invalid operation: ${rawOp}`);

    for (const [operand, other] of [
      [field, value],
      [value, field],
    ] as const) {
      if (typeof operand !== 'string' || !operand.endsWith(TIMESTAMP_DESIGNATOR)) continue;
      if (!TIMESTAMP_OPS.has(op)) throw new FilterValueError(`${op}: invalid timestamp operation.`);
      if (typeof other !== 'string' || parseIsoTimestamp(other) === null) {
        throw new FilterValueError(`${pyStr(other)}: must be an ISO-8601 formatted timestamp string`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Filter evaluation
// ---------------------------------------------------------------------------------------------

function applyOp(op: string, x: unknown, y: unknown): boolean {
  switch (op) {
    case '=':
      return pyEq(x, y);
    case '!=':
      return !pyEq(x, y);
    case '>':
      return pyCompare(x, y) === 1;
    case '>=': {
      const c = pyCompare(x, y);
      return c === 1 || c === 0;
    }
    case '<':
      return pyCompare(x, y) === -1;
    case '<=': {
      const c = pyCompare(x, y);
      return c === -1 || c === 0;
    }
    case '~':
      return opRegex(x, y);
    case 'in':
      return pyContains(y, x) === true;
    case 'nin':
      return x !== null && pyContains(y, x) === false;
    case 'rin':
      return x !== null && pyContains(x, y) === true;
    case 'rnin':
      return x !== null && pyContains(x, y) === false;
    case '^':
      return typeof x === 'string' && typeof y === 'string' && x.startsWith(y);
    case '!^':
      return typeof x === 'string' && typeof y === 'string' && !x.startsWith(y);
    case '$':
      return typeof x === 'string' && typeof y === 'string' && x.endsWith(y);
    case '!$':
      return typeof x === 'string' && typeof y === 'string' && !x.endsWith(y);
    default:
      return false;
  }
}

function filterOp(item: unknown, name: string, op: string, value: unknown, isTimestamp: boolean): boolean {
  const data = getImpl(item, name);
  if (data.kind === 'error') return false;
  if (data.kind === 'wildcard') return data.list.some((entry) => filterOp(entry, data.rest, op, value, isTimestamp));
  if (data.value === MISSING) return false;

  let source = data.value;
  let target = value;
  let fn = op;
  if (isTimestamp && TIMESTAMP_OPS.has(op)) {
    source = timestampOf(source);
    target = timestampOf(target);
  } else if (op[0] === 'C') {
    fn = op.slice(1);
    source = casefold(source);
    target = casefold(target);
  }
  return applyOp(fn, source, target);
}

function evalFilter(item: unknown, f: unknown): boolean {
  if (!Array.isArray(f)) return false;
  if (f.length === 2) {
    const branches = f[1];
    if (!Array.isArray(branches)) return false;
    for (const branch of branches) {
      if (!Array.isArray(branch)) continue;
      const hit = Array.isArray(branch[0]) ? branch.every((c) => evalFilter(item, c)) : evalFilter(item, branch);
      if (hit) return true;
    }
    return false;
  }
  if (f.length !== 3) return false;
  const [name, op, value] = f as [unknown, unknown, unknown];
  if (typeof name !== 'string' || typeof op !== 'string' || op === '') return false;
  return filterOp(item, name, op, value, name.endsWith(TIMESTAMP_DESIGNATOR));
}

/** True when the item matches all filters (exported for event filtering and listdir push-down). */
export function matchesFilters(item: object, filters: QueryFilters): boolean {
  for (const f of filters) {
    if (!evalFilter(item, f)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Options validation
// ---------------------------------------------------------------------------------------------

const OPTION_FIELDS = ['extra', 'order_by', 'select', 'count', 'get', 'offset', 'limit', 'force_sql_filters'] as const;

const MSG = {
  list: 'Input should be a valid list',
  dict: 'Input should be a valid dictionary',
  str: 'Input should be a valid string',
  bool: 'Input should be a valid boolean',
  int: 'Input should be a valid integer',
  extra: 'Extra inputs are not permitted',
  model: 'Input should be a valid dictionary or instance of QueryOptions',
  combination: 'Invalid options combination. `get` implies a single result.',
  limit: `Options limit must be between 1 and ${QUERY_MAX_LIMIT}`,
} as const;

function isStrictInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function checkOptionFields(o: Record<string, unknown>, triples: ValidationTriple[]): void {
  const add = (attr: string, msg: string): void => {
    triples.push([attr, msg, ERRNO.EINVAL]);
  };
  for (const key of OPTION_FIELDS) {
    if (!Object.hasOwn(o, key)) continue;
    const v = o[key];
    const attr = `options.${key}`;
    switch (key) {
      case 'extra':
        if (!isDict(v)) add(attr, MSG.dict);
        break;
      case 'order_by':
        if (!Array.isArray(v)) add(attr, MSG.list);
        else v.forEach((x, i) => typeof x !== 'string' && add(`${attr}.${i}`, MSG.str));
        break;
      case 'select':
        if (!Array.isArray(v)) add(attr, MSG.list);
        else
          v.forEach((x, i) => {
            if (typeof x === 'string' || Array.isArray(x)) return;
            add(`${attr}.${i}.str`, MSG.str);
            add(`${attr}.${i}.list[any]`, MSG.list);
          });
        break;
      case 'count':
      case 'get':
      case 'force_sql_filters':
        if (typeof v !== 'boolean') add(attr, MSG.bool);
        break;
      case 'offset':
      case 'limit':
        if (!isStrictInt(v)) add(attr, MSG.int);
        break;
    }
  }
  for (const key of Object.keys(o)) {
    if (!(OPTION_FIELDS as readonly string[]).includes(key)) add(`options.${key}`, MSG.extra);
  }
}

/** Upstream `validate_options` (the model validator); runs only once the field types are right. */
function checkOptionRules(o: QueryOptions): string | null {
  const limit = o.limit ?? 0;
  if (o.get && limit > 1) return MSG.combination;
  if (o.get && o.offset) return MSG.combination;
  if (limit > QUERY_MAX_LIMIT) return MSG.limit;
  for (const s of o.select ?? []) {
    if (typeof s === 'string') continue;
    if (s.length !== 2) {
      return (
        `${pyRepr(s)}: A select as list may only contain two parameters: the name of the parameter being ` +
        'selected, and the name to which to assign it in resulting data.'
      );
    }
    for (const [idx, selector] of s.entries()) {
      if (typeof selector !== 'string') return `${pyRepr(s)}: ${idx === 0 ? 'first' : 'second'} item must be a string.`;
    }
  }
  return null;
}

/**
 * Validates raw `filters`/`options` params (throwing -32602 errors on attribute `filters` /
 * `options[.<key>]`) and returns them typed. `undefined` means the default (`[]` / `{}`).
 */
export function parseQueryArgs(filters: unknown, options: unknown): { filters: QueryFilters; options: QueryOptions } {
  const triples: ValidationTriple[] = [];

  let parsedFilters: QueryFilters = [];
  if (filters !== undefined) {
    if (!Array.isArray(filters)) {
      triples.push(['filters', MSG.list, ERRNO.EINVAL]);
    } else {
      try {
        validateFilters(filters, 0);
        parsedFilters = filters;
      } catch (err) {
        if (!(err instanceof FilterValueError)) throw err;
        triples.push(['filters', `Value error, ${err.message}`, ERRNO.EINVAL]);
      }
    }
  }

  let parsedOptions: QueryOptions = {};
  if (options !== undefined) {
    if (!isDict(options)) {
      triples.push(['options', MSG.model, ERRNO.EINVAL]);
    } else {
      const before = triples.length;
      checkOptionFields(options, triples);
      if (triples.length === before) {
        const typed = { ...options } as QueryOptions;
        const rule = checkOptionRules(typed);
        if (rule !== null) triples.push(['options', `Value error, ${rule}`, ERRNO.EINVAL]);
        else parsedOptions = typed;
      }
    }
  }

  if (triples.length > 0) throw rpcErrors.validation(triples);
  return { filters: parsedFilters, options: parsedOptions };
}

// ---------------------------------------------------------------------------------------------
// select / order_by / get
// ---------------------------------------------------------------------------------------------

function selectPath(obj: unknown, path: string): { keys: string[]; value: unknown } {
  const keys: string[] = [];
  let right = path;
  let cur: unknown = obj;
  while (right) {
    let left: string;
    [left, right] = partition(right);
    if (isDict(cur)) {
      cur = ownGet(cur, left);
      keys.push(left);
    } else if (Array.isArray(cur)) {
      throw rpcErrors.exception(
        'ValueError',
        'Selecting by list index is not supported',
        "ValueError('Selecting by list index is not supported')",
      );
    }
  }
  return { keys, value: cur };
}

function doSelect(item: unknown, select: readonly (string | readonly string[])[]): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  const built = new WeakSet<object>([entry]);
  for (const s of select) {
    const [target, alias] = typeof s === 'string' ? [s, undefined] : [s[0]!, s[1]!];
    const { keys, value } = selectPath(item, target);
    if (value === MISSING) continue;
    if (alias !== undefined) {
      setOwn(entry, alias, value);
      continue;
    }
    const last = keys.pop();
    if (last === undefined) continue;
    let obj = entry;
    for (const k of keys) {
      let next = Object.hasOwn(obj, k) ? obj[k] : undefined;
      if (!isDict(next)) {
        next = {};
        built.add(next as object);
        setOwn(obj, k, next);
      } else if (!built.has(next)) {
        // A sub-object taken from the item by an earlier selector: copy before writing into it.
        next = { ...next };
        built.add(next as object);
        setOwn(obj, k, next);
      }
      obj = next as Record<string, unknown>;
    }
    setOwn(obj, last, value);
  }
  return entry;
}

const TYPE_RANK = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (isNumeric(v)) return 1;
  if (v instanceof Date) return 2;
  if (typeof v === 'string') return 3;
  if (Array.isArray(v)) return 4;
  return 5;
};

/** Total order for sorting: Python order where defined, nulls smallest, then by type. */
function sortCompare(a: unknown, b: unknown): number {
  const ra = TYPE_RANK(a);
  const rb = TYPE_RANK(b);
  if (ra !== rb) return ra - rb;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = sortCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return Math.sign(a.length - b.length);
  }
  return pyCompare(a, b) ?? 0;
}

function sortBy(list: unknown[], field: string): unknown[] {
  const reverse = field.startsWith(REVERSE_CHAR);
  const path = reverse ? field.slice(1) : field;
  const keyed = list.map((item) => ({ item, key: getValue(item, path) }));
  keyed.sort((x, y) => (reverse ? -1 : 1) * sortCompare(x.key, y.key));
  return keyed.map((k) => k.item);
}

function orderNulls(list: unknown[], field: string): [unknown[], unknown[]] {
  const path = field.startsWith(REVERSE_CHAR) ? field.slice(1) : field;
  const nulls: unknown[] = [];
  const nonNulls: unknown[] = [];
  for (const entry of list) (getValue(entry, path) === null ? nulls : nonNulls).push(entry);
  return [nulls, sortBy(nonNulls, field)];
}

/** Upstream `do_order`: one stable sort per entry, in order, so the last entry is the primary key. */
function doOrder(list: unknown[], orderBy: readonly string[]): unknown[] {
  let rv = list;
  for (const o of orderBy) {
    if (o.startsWith(NULLS_FIRST)) {
      const [nulls, nonNulls] = orderNulls(rv, o.slice(NULLS_FIRST.length));
      rv = [...nulls, ...nonNulls];
    } else if (o.startsWith(NULLS_LAST)) {
      const [nulls, nonNulls] = orderNulls(rv, o.slice(NULLS_LAST.length));
      rv = [...nonNulls, ...nulls];
    } else {
      rv = sortBy(rv, o);
    }
  }
  return rv;
}

function doGet(list: readonly unknown[]): unknown {
  if (list.length === 0) throw rpcErrors.matchNotFound();
  return list[0];
}

/**
 * filter → select → count → order_by → get → offset → limit (upstream `filter_list`). Returns a
 * list, a number (`count`) or one object (`get`). Items are never mutated.
 */
export function applyQuery(items: readonly object[], filters: QueryFilters, options: QueryOptions): unknown {
  const select = options.select ?? [];
  const orderBy = options.order_by ?? [];
  const shortcircuit = options.get === true && orderBy.length === 0;

  let rv: unknown[];
  if (filters.length > 0) {
    rv = [];
    for (const item of items) {
      if (!matchesFilters(item, filters)) continue;
      rv.push(select.length > 0 ? doSelect(item, select) : item);
      if (shortcircuit) break;
    }
    // As upstream: an unordered `get` with filters returns before `count` is looked at.
    if (shortcircuit) return doGet(rv);
  } else if (select.length > 0) {
    rv = items.map((item) => doSelect(item, select));
  } else {
    rv = [...items];
  }

  if (options.count === true) return rv.length;

  rv = doOrder(rv, orderBy);

  if (options.get === true) return doGet(rv);

  if (options.offset) rv = rv.slice(options.offset);
  if (options.limit) return rv.slice(0, options.limit);
  return rv;
}

/** Convenience: parse then apply. */
export function query(items: readonly object[], filters: unknown, options: unknown): unknown {
  const parsed = parseQueryArgs(filters, options);
  return applyQuery(items, parsed.filters, parsed.options);
}
