/**
 * Runs tasks a few at a time, taking turns between keys (client addresses): each key's tasks in
 * their order, the keys round-robin. Key checks (one scrypt each) go through it, so one address's
 * flood of keyed calls delays another address's login by at most the hashes already running, not
 * by the whole flood (issue 21 §12: an administrator's login took 15.3 s behind a low user's flood,
 * in libuv's first-come queue). 25.10.1 checks a key through PAM on its thread pool
 * (MW/plugins/api_key.py:364-381), first come first served: the turns are stor's own.
 */
export class FairQueue {
  /** Waiting tasks per key; a key's place in the Map's order is its turn. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private running = 0;

  constructor(
    /** Tasks at once: two leave libuv's other threads (four by default) to file I/O. */
    private readonly concurrency = 2,
  ) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.next();
          });
      };
      const queue = this.waiting.get(key);
      if (queue) queue.push(start);
      else this.waiting.set(key, [start]);
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.size > 0) {
      const [key, queue] = this.waiting.entries().next().value as [string, (() => void)[]];
      const start = queue.shift()!;
      // Its turn taken: the key goes to the back of the line, or leaves it when it has no more.
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      start();
    }
  }
}
