/**
 * Failed API-key checks, counted against what failed: a wrong secret for a key id against that id
 * from that address, an id that does not exist (or a value that is no key) against the address's
 * budget for unknown ids. A guesser is refused before the slow hash, and a different, valid key
 * from the same address is never refused. Every login path shares it: bearer requests, uploads,
 * and `auth.login*` on any session, anonymous or not.
 */
export class KeyCheckLimits {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    /** Failures tolerated per window before the credential is refused (the appliance's login budget, facts §1.8). */
    private readonly limit = 20,
    private readonly windowMs = 60_000,
    /** Bounded memory: the least recently started windows are forgotten first. */
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a check of key `keyId` (null: an unknown id) from `address` is refused without hashing. */
  refused(address: string, keyId: number | null): boolean {
    const w = this.windows.get(bucketOf(address, keyId));
    return w !== undefined && this.now() - w.start < this.windowMs && w.count >= this.limit;
  }

  failed(address: string, keyId: number | null): void {
    const key = bucketOf(address, keyId);
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
  }
}

function bucketOf(address: string, keyId: number | null): string {
  return `${keyId ?? 'unknown'}\u0000${address}`;
}
