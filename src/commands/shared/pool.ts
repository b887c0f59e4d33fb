/**
 * Runs `work` on every item with at most `limit` under way at once, starting them in order.
 * With `firstAlone`, the first item runs by itself before the others start: it probes the target,
 * so a target that refuses everything (rate limit, credentials, a missing parent) costs one
 * transfer, not `limit`, and the directories it creates exist before the rest race for them.
 * `work` handles its own failures (a transfer's failure is an outcome, not an exception).
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
  o: { firstAlone?: boolean } = {},
): Promise<void> {
  let next = 0;
  if (o.firstAlone && items.length > 0) await work(items[next++]!, 0);
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length - next) }, worker));
}
