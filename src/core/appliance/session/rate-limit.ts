/**
 * Calls to login-type methods (anonymous ones, as on 25.10.1, and `auth.login*` from any session:
 * call-gate.ts): at most `limit` per `windowMs` per (method, client address), in a cache of at
 * most `maxEntries` keys (MW/main.py:873-905, MW/utils/rate_limit/cache.py:15-20: 20 per 60 s,
 * 100 entries). Failed password checks on the upload endpoint use it too; failed key checks are
 * counted per key id (KeyCheckLimits).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit = 20,
    private readonly windowMs = 60_000,
    private readonly maxEntries = 100,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the next call would be over the limit, without counting one. */
  blocked(method: string, address: string): boolean {
    const w = this.windows.get(`${method}\u0000${address}`);
    return w !== undefined && this.now() - w.start < this.windowMs && w.count >= this.limit;
  }

  /** Counts one call; false when it is over the limit. */
  hit(method: string, address: string): boolean {
    const key = `${method}\u0000${address}`;
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.delete(key);
      this.windows.set(key, w);
      // Map order is insertion order: the first key is the least recently started window.
      while (this.windows.size > this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
    }
    w.count++;
    return w.count <= this.limit;
  }
}
