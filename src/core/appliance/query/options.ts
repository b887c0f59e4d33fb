/** Query options: field and rule validation (upstream `validators/options.py`), then select, order_by and get. */
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { MISSING, getValue, selectPath, setOwn } from './paths.js';
import { isDict, isNumeric, pyCompare, pyRepr } from './python.js';

/** A query's `options` (QueryOptions, MW/api/v25_10_1/common.py), once checkOptionFields passed them. */
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
/**
 * Most `select` / `order_by` entries accepted. Not upstream's: each costs work per item (or per
 * comparison), so the count is bounded like the filters.
 */
export const MAX_SELECT = 256;
export const MAX_ORDER_BY = 256;
const NULLS_FIRST = 'nulls_first:';
const NULLS_LAST = 'nulls_last:';
const REVERSE_CHAR = '-';

// ---------------------------------------------------------------------------------------------
// Options validation
// ---------------------------------------------------------------------------------------------

const OPTION_FIELDS = ['extra', 'order_by', 'select', 'count', 'get', 'offset', 'limit', 'force_sql_filters'] as const;

export const MSG = {
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

export function checkOptionFields(o: Record<string, unknown>, triples: ValidationTriple[]): void {
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
export function checkOptionRules(o: QueryOptions): string | null {
  const limit = o.limit ?? 0;
  if (o.get && limit > 1) return MSG.combination;
  if (o.get && o.offset) return MSG.combination;
  if (limit > QUERY_MAX_LIMIT) return MSG.limit;
  if ((o.select?.length ?? 0) > MAX_SELECT) return `select may hold at most ${MAX_SELECT} entries`;
  if ((o.order_by?.length ?? 0) > MAX_ORDER_BY) return `order_by may hold at most ${MAX_ORDER_BY} entries`;
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

// ---------------------------------------------------------------------------------------------
// select / order_by / get
// ---------------------------------------------------------------------------------------------

export function doSelect(item: unknown, select: readonly (string | readonly string[])[]): Record<string, unknown> {
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

function sortBy<T>(list: T[], field: string): T[] {
  const reverse = field.startsWith(REVERSE_CHAR);
  const path = reverse ? field.slice(1) : field;
  const keyed = list.map((item) => ({ item, key: getValue(item, path) }));
  const compare = (x: { key: unknown }, y: { key: unknown }) => (reverse ? -1 : 1) * sortCompare(x.key, y.key);
  // Already in order (a list by id, as the store reads it): a stable sort would leave it as it is.
  if (keyed.every((k, i) => i === 0 || compare(keyed[i - 1]!, k) <= 0)) return list;
  keyed.sort(compare);
  return keyed.map((k) => k.item);
}

/**
 * Upstream `order_nulls`: an entry is null by its top-level key only, `entry.get(order) is None`
 * (MW/utils/filter_list.py:492 at TS-25.10.1, :304 on stable/26), so a dotted path such as
 * `nulls_first:group.bsdgrp_gid` finds every entry null and leaves the list in its order; the
 * non-null entries are sorted by the path as `get` reads it. The nulls keep their order.
 */
function orderNulls<T>(list: T[], field: string): [T[], T[]] {
  const key = field.startsWith(REVERSE_CHAR) ? field.slice(1) : field;
  const nulls: T[] = [];
  const nonNulls: T[] = [];
  for (const entry of list) (topLevelIsNone(entry, key) ? nulls : nonNulls).push(entry);
  return [nulls, sortBy(nonNulls, field)];
}

/** Python's `entry.get(key) is None` on a dict: the key absent, or present and None. */
function topLevelIsNone(entry: unknown, key: string): boolean {
  if (typeof entry !== 'object' || entry === null || !Object.hasOwn(entry, key)) return true;
  const value = (entry as Record<string, unknown>)[key];
  return value === null || value === undefined;
}

/** Upstream `do_order`: one stable sort per entry, in order, so the last entry is the primary key. */
export function doOrder<T>(list: T[], orderBy: readonly string[]): T[] {
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

export function doGet<T>(list: readonly T[]): T {
  if (list.length === 0) throw rpcErrors.matchNotFound();
  return list[0]!;
}
