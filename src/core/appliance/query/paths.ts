/** Dot paths into query items (`a.b.c`, `\.` a literal dot): upstream `partition`, `get_impl`, `get`, select paths. */
import { rpcErrors } from '../../errors.js';
import { isDict } from './python.js';

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/** A key that is absent (upstream `undefined` / `MatchNotFound` sentinels). */
export const MISSING: unique symbol = Symbol('missing');

function ownGet(obj: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(obj, key)) return MISSING;
  const v = obj[key];
  return v === undefined ? MISSING : v;
}

export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

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

/** The field a path starts at (`a` of `a.b.c`; `a.b` of `a\\.b`): what a `select` of it reads of an item. */
export function firstKey(path: string): string {
  return partition(path)[0];
}

export type GetResult =
  { kind: 'value'; value: unknown } | { kind: 'wildcard'; list: unknown[]; rest: string } | { kind: 'error' };

/** Upstream `get_impl`: a list index past the end gives null; scalars stop the descent. */
export function getImpl(obj: unknown, path: string): GetResult {
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
export function getValue(obj: unknown, path: string): unknown {
  const r = getImpl(obj, path);
  if (r.kind === 'wildcard') return r.list;
  if (r.kind === 'error' || r.value === MISSING) return null;
  return r.value;
}

export function selectPath(obj: unknown, path: string): { keys: string[]; value: unknown } {
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
