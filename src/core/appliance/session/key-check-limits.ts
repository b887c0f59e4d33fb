import { RateLimiter } from './rate-limit.js';

/**
 * Failed API-key checks, counted against what failed: a wrong secret for a key id against that id
 * from that address, an id that does not exist (or a value that is no key) against the address's
 * budget for unknown ids. A guesser is refused before the slow hash, and a different, valid key
 * from the same address is never refused. Every login path shares it: bearer requests, uploads,
 * and `auth.login*` on any session, anonymous or not.
 */
export class KeyCheckLimits {
  private readonly windows: RateLimiter;

  constructor(
    /** Failures tolerated per window before the credential is refused (the appliance's login budget, MW/utils/rate_limit/cache.py:15-18). */
    limit = 20,
    windowMs = 60_000,
    /** Bounded memory: the least recently started windows are forgotten first. */
    maxEntries = 10_000,
    now: () => number = Date.now,
  ) {
    this.windows = new RateLimiter(limit, windowMs, maxEntries, now);
  }

  /** Whether a check of key `keyId` (null: an unknown id) from `address` is refused without hashing. */
  refused(address: string, keyId: number | null): boolean {
    return this.windows.blocked(bucketOf(keyId), address);
  }

  failed(address: string, keyId: number | null): void {
    this.windows.hit(bucketOf(keyId), address);
  }
}

const bucketOf = (keyId: number | null): string => `key:${keyId ?? 'unknown'}`;
