/** Query filters: validation (upstream `validators/filters.py`) and evaluation (`filter_list.py`, `filter_ops.py`). */
import { MISSING, getImpl } from './paths.js';
import {
  casefold,
  checkPyRegex,
  compilePyRegex,
  opRegex,
  parseIsoTimestamp,
  pyCompare,
  pyContains,
  pyEq,
  pyRegexSize,
  pyRepr,
  pyStr,
  pythonRefuses,
  queryRegexTooLarge,
  regexTooLarge,
  timestampOf,
} from './python.js';
import { MAX_REGEX_SIZE } from './regex-size.js';

/** `filters` of a query, checked by validateFilters. */
export type QueryFilters = unknown[];

/** Deepest OR nesting accepted (`MAX_FILTERS_DEPTH`). */
const MAX_FILTERS_DEPTH = 3;
/**
 * Most filters one query may hold, OR branches' included. Not upstream's: every filter is evaluated
 * against every item, so the count bounds a query's work as the depth does.
 */
export const MAX_FILTERS = 256;
const TIMESTAMP_DESIGNATOR = '.$date';

const OPS = new Set(['=', '!=', '>', '>=', '<', '<=', '~', 'in', 'nin', 'rin', 'rnin', '^', '!^', '$', '!$']);
const TIMESTAMP_OPS = new Set(['=', '!=', '>', '>=', '<', '<=']);

// ---------------------------------------------------------------------------------------------
// Filter validation
// ---------------------------------------------------------------------------------------------

export class FilterValueError extends Error {}

/**
 * What one query's filters have used so far: their count, and the distinct `~` patterns with their
 * estimated compiled size together. The size cap is for the query, not each pattern: 256 patterns
 * each just under it compiled 2.5 M instructions (25 s of a blocked event loop), and evaluating
 * patterns too many for the compiled-pattern cache recompiled them for every item.
 */
interface FilterBudget {
  count: number;
  patterns: Set<string>;
  regexSize: number;
}

export function validateFilters(
  filters: unknown[],
  depth: number,
  seen: FilterBudget = { count: 0, patterns: new Set(), regexSize: 0 },
): void {
  if (depth > MAX_FILTERS_DEPTH) throw new FilterValueError('query-filters max recursion depth exceeded');

  for (const f of filters) {
    if (++seen.count > MAX_FILTERS) throw new FilterValueError(`query-filters may hold at most ${MAX_FILTERS} filters`);
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
        if (!Array.isArray(branch) || branch.length === 0)
          throw new FilterValueError(`Invalid filter ${pyRepr(branch)}`);
        if (Array.isArray(branch[0])) validateFilters(branch, depth + 1, seen);
        else validateFilters([branch], depth + 1, seen);
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
    // A pattern Python refuses is its exception when a filter reaches an item, not a refusal here
    // (opRegex): the release's validators never compile it. What the emulator itself refuses
    // (what RE2 cannot run, the size cap) is refused here.
    if (op === '~' && typeof value === 'string' && !pythonRefuses(value)) {
      try {
        checkPyRegex(value);
      } catch (err) {
        throw new FilterValueError((err as Error).message);
      }
      if (!seen.patterns.has(value)) {
        seen.patterns.add(value);
        seen.regexSize += pyRegexSize(value);
        if (seen.regexSize > MAX_REGEX_SIZE)
          throw new FilterValueError(seen.patterns.size === 1 ? regexTooLarge(value) : queryRegexTooLarge(value));
      }
      try {
        compilePyRegex(value);
      } catch (err) {
        throw new FilterValueError((err as Error).message);
      }
    }

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
