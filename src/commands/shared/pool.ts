/**
 * Runs `work` on every item with at most `limit` under way at once, starting them in order.
 * `work` handles its own failures (a transfer's failure is an outcome, not an exception).
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
