/**
 * Runs tasks a few at a time, taking turns between keys (client addresses) and, within a key,
 * between callers (the API key or user name being checked): each caller's tasks in their order,
 * addresses round-robin, and an address's callers round-robin in its turns. Key checks (one scrypt
 * each) go through it, so one address's flood of keyed calls delays another address's login by at
 * most the hashes already running, not by the whole flood (once an administrator's login
 * took 15.3 s behind a low user's flood, in libuv's first-come queue); and an administrator who
 * shares the flood's address (loopback, one NAT or jump host) waits for one of its hashes per turn
 * of theirs, not for all of them. 25.10.1 checks a key through PAM on its thread pool
 * (MW/plugins/api_key.py:364-381), first come first served: the turns are stor's own.
 */
export class FairQueue {
  /** Waiting tasks per key, then per caller; a key's (a caller's) place in its Map's order is its turn. */
  private readonly waiting = new Map<string, Map<string, (() => void)[]>>();
  private running = 0;

  constructor(
    /** Tasks at once: two leave libuv's other threads (four by default) to file I/O. */
    private readonly concurrency = 2,
  ) {}

  run<T>(key: string, task: () => Promise<T>, caller = ''): Promise<T> {
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
      let callers = this.waiting.get(key);
      if (!callers) this.waiting.set(key, (callers = new Map()));
      const queue = callers.get(caller);
      if (queue) queue.push(start);
      else callers.set(caller, [start]);
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.size > 0) {
      const [key, callers] = this.waiting.entries().next().value as [string, Map<string, (() => void)[]>];
      const [caller, queue] = callers.entries().next().value as [string, (() => void)[]];
      const start = queue.shift()!;
      // Its turn taken: the caller goes to the back of its key's line and the key to the back of
      // the line, or each leaves its line when it has no more.
      callers.delete(caller);
      if (queue.length > 0) callers.set(caller, queue);
      this.waiting.delete(key);
      if (callers.size > 0) this.waiting.set(key, callers);
      start();
    }
  }
}
