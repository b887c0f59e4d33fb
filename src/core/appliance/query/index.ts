/**
 * The query-filters / query-options engine behind every `*.query` method of the emulated appliance
 * (upstream `MW/utils/filter_list.py`, `MW/api/base/validators/{filters,options,filter_ops}.py`,
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
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { FilterValueError, matchesFilters, validateFilters, type QueryFilters } from './filters.js';
import { MSG, checkOptionFields, checkOptionRules, doGet, doOrder, doSelect, type QueryOptions } from './options.js';
import { isDict } from './python.js';

export { matchesFilters, type QueryFilters } from './filters.js';
export { type QueryOptions } from './options.js';

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

/**
 * What a query answers (`query_result`, MW/api/base/model.py:307-324): a list of items, one item
 * (`get`) or a count (`count`). Items have any subset of their fields, since `select` picks them.
 */
export type QueryAnswer<T> = Partial<T>[] | Partial<T> | number;

/**
 * filter → select → count → order_by → get → offset → limit (upstream `filter_list`). Returns a
 * list, a number (`count`) or one object (`get`). Items are never mutated.
 */
export function applyQuery<T extends object>(
  items: readonly T[],
  filters: QueryFilters,
  options: QueryOptions,
): QueryAnswer<T> {
  const select = options.select ?? [];
  const orderBy = options.order_by ?? [];
  const shortcircuit = options.get === true && orderBy.length === 0;
  // `select` keeps some of an item's fields, read by path; the contract's items are partial for it
  // (an alias names a field the item has not, which the result check reports as one 25.10.1 never sends).
  const picked = (item: T): Partial<T> => (select.length > 0 ? (doSelect(item, select) as Partial<T>) : item);

  let rv: Partial<T>[];
  if (filters.length > 0) {
    rv = [];
    for (const item of items) {
      if (!matchesFilters(item, filters)) continue;
      rv.push(picked(item));
      if (shortcircuit) break;
    }
    // As upstream: an unordered `get` with filters returns before `count` is looked at.
    if (shortcircuit) return doGet(rv);
  } else {
    rv = items.map(picked);
  }

  if (options.count === true) return rv.length;

  rv = doOrder(rv, orderBy);

  if (options.get === true) return doGet(rv);

  if (options.offset) rv = rv.slice(options.offset);
  if (options.limit) return rv.slice(0, options.limit);
  return rv;
}

/**
 * Upstream `CRUDService.get_instance` (MW/service/crud_service.py:228-243): the query narrowed to
 * the id, with the caller's options; nothing found is `<verbose> <id> does not exist`.
 *
 * The answer is typed as the whole entry its contract answers. It is one unless the options ask
 * otherwise: a `select` trims the item to the fields named, as 25.10.1's query does; such an answer
 * is no entry (the result check in tests reports it, and no command asks for it). This is the one
 * place the emulator types an answer as more than it knows it to be.
 */
export function getInstance<T extends object>(items: readonly T[], id: unknown, options: unknown, verbose: string): T {
  const found = query(items, [['id', '=', id]], options);
  if (!Array.isArray(found) || found.length === 0) throw rpcErrors.instanceNotFound(verbose, id);
  return found[0] as T;
}

/** Convenience: parse then apply. */
export function query<T extends object>(items: readonly T[], filters: unknown, options: unknown): QueryAnswer<T> {
  const parsed = parseQueryArgs(filters, options);
  return applyQuery(items, parsed.filters, parsed.options);
}
