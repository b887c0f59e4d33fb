/**
 * `filter_getattrs` (MW/utils/filter_list.py:572-589), word for word: the attributes a filter list
 * names, as handlers that read differently by filter ask (pool.snapshot.query's retention,
 * service.query's state). An OR's second branch only is looked into, as the source's loop does.
 */
export function filterAttrs(filters: unknown): Set<unknown> {
  const attrs = new Set<unknown>();
  const stack = Array.isArray(filters) ? [...(filters as unknown[])] : [];
  while (stack.length > 0) {
    const f = stack.pop();
    if (!Array.isArray(f)) continue;
    if (f.length === 2) stack.push(f[1]);
    else if (f.length === 3) attrs.add(f[0]);
  }
  return attrs;
}
