/**
 * A queue per key and per owner (an appliance): the operations given one key run one at a time,
 * in the order they were given; different keys run side by side. A key's entry goes once its
 * queue is empty, so many distinct keys (one per uploaded path) hold no memory afterwards.
 */
export type KeyedQueue = <T>(owner: object, key: string, fn: () => Promise<T>) => Promise<T>;

export function keyedQueue(): KeyedQueue {
  const queues = new WeakMap<object, Map<string, Promise<unknown>>>();
  return <T>(owner: object, key: string, fn: () => Promise<T>): Promise<T> => {
    let byKey = queues.get(owner);
    if (!byKey) queues.set(owner, (byKey = new Map()));
    const run = (byKey.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    byKey.set(key, tail);
    void tail.then(() => {
      if (byKey.get(key) === tail) byKey.delete(key);
    });
    return run;
  };
}
