import type { Transport } from '../transport/transport.js';
import { queryItems, type Needed } from './client.js';
import type { ItemOf, QueryMethod } from './index.js';

/**
 * Items per call of a paged list. Every call costs an appliance the whole list: 25.10.1 builds
 * every item, then orders and slices it (MW/utils/filter_list.py:315-360; pool.dataset.query's
 * generic_query walks every dataset, MW/plugins/pool_/dataset_query_utils.py:1106-1124), so a
 * list costs calls × items there and the fewer calls the better. But an answer is built and sent
 * whole, and this client takes at most 64 MiB in one message (transport/remote.ts `maxPayload`):
 * 5,000 selected datasets are about 2.5 MB, and a page stays under that cap while an item stays
 * under 13 kB (a dataset's user properties, a share's host lists), where the most a query takes
 * (10,000, `MAX_LIMIT`, filter_list.py:15) would leave 6 kB. 10,000 datasets take three calls.
 */
export const QUERY_PAGE = 5000;

/**
 * Every item of a `*.query`, asked `page` at a time in the order `options.order_by` gives; `each`
 * sees every page as it comes. Ordered by `id` alone (every list stor pages), each page after the
 * first asks for the items past the last one seen (`id >`, or `<` for `-id`) rather than an offset:
 * an item made or removed between two pages then shifts nothing, where an offset would skip the
 * item after a removed one or list one twice. The filter is one more query-filter, so it is applied
 * as every other (pool.dataset.query's too: MW/plugins/pool_/dataset_query_utils.py:1085-1100 at
 * TS-25.10.1, :1105-1109 on stable/26). Any other order pages by offset, listing none twice (by `id`).
 */
export async function queryPages<M extends QueryMethod, K extends keyof ItemOf<M> & string>(
  t: Pick<Transport, 'call'>,
  method: M,
  need: readonly K[],
  filters: unknown[],
  options: Record<string, unknown>,
  each: (page: Needed<M, K>[]) => void = () => undefined,
  page = QUERY_PAGE,
): Promise<Needed<M, K>[]> {
  const found: Needed<M, K>[] = [];
  const seen = new Set<unknown>();
  const order = Array.isArray(options.order_by) && options.order_by.length === 1 ? options.order_by[0] : undefined;
  const past = order === 'id' ? '>' : order === '-id' ? '<' : undefined;
  let after: unknown[] | undefined;
  for (let offset = 0; ; offset += page) {
    const items = await queryItems(
      t,
      method,
      need,
      after ? [...filters, after] : filters,
      past ? { ...options, limit: page } : { ...options, offset, limit: page },
    );
    each(items);
    const before = found.length;
    for (const item of items) {
      const id = (item as { id?: unknown }).id;
      if (seen.has(id)) continue;
      seen.add(id);
      found.push(item);
    }
    // A short page is the last; so is one with nothing new (a target that ignores limit, offset or
    // the filter would otherwise be asked for ever).
    if (items.length !== page || found.length === before) return found;
    if (past) after = ['id', past, (items[items.length - 1] as { id?: unknown }).id];
  }
}
