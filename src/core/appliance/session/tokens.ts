import { randomBytes } from 'node:crypto';
import { ERRNO, rpcErrors } from '../../errors.js';
import type { Origin, SessionToken, TokenParent } from './session.js';

/*
 * Bounds on what tokens may hold in memory. 25.10.1 has none: its TokenManager keeps every token
 * until it expires or is spent, and `attrs` is any dict (MW/plugins/auth.py:51-66,
 * MW/api/v25_10_1/auth.py:216 "XXX should we have some actual validation here?"), so 4000 tokens
 * of 60 kB with a ttl of 10^9 s took a server from 128 to 407 MiB for good. What tokens are for needs far less: the
 * CLI keeps one upload token per connection and renews it every 5 minutes, and core.download's
 * attrs are a job id and a file name (at most a few hundred bytes).
 */

/** `attrs` as JSON, in UTF-8 bytes: room for a job id and a file name of well over a thousand characters. */
export const MAX_TOKEN_ATTRS_BYTES = 4096;
/** Live tokens made by one session (each core.download makes one, spent by its GET or gone in 300 s). */
export const MAX_TOKENS_PER_SESSION = 100;
/** Live tokens standing for one user across all their sessions: bounds a user who opens many connections. */
export const MAX_TOKENS_PER_USER = 1000;

/**
 * An `auth.generate_token` token (MW/plugins/auth.py:51-117). It lives in memory only, as on the
 * appliance: a restart forgets every token. `ttl` is an inactivity window, not a lifetime: each
 * use of a session logged in with the token starts it again (`notify_used`).
 */
export class AuthToken implements SessionToken {
  private lastUsedAt = performance.now();

  constructor(
    private readonly owner: Tokens,
    readonly value: string,
    private readonly ttlSeconds: number,
    readonly attrs: Record<string, unknown>,
    /** The address the token is bound to, or null when any origin may use it. */
    readonly matchOrigin: string | null,
    readonly parent: TokenParent,
    readonly singleUse: boolean,
    /** The session that made it (25.10.1's `session_ids`), for the per-session bound. */
    readonly sessionId: string,
  ) {}

  get valid(): boolean {
    return performance.now() < this.lastUsedAt + this.ttlSeconds * 1000;
  }

  notifyUsed(): void {
    this.lastUsedAt = performance.now();
  }

  destroy(): void {
    this.owner.destroy(this);
  }
}

/** The appliance's token table (`TokenManager`). */
export class Tokens {
  private readonly tokens = new Map<string, AuthToken>();

  /**
   * A new token, unless it would pass the bounds above: attrs too large is a validation error of
   * `attrs`, too many live tokens a CallError (EAGAIN: room comes back as tokens are spent or
   * expire). Expired tokens are swept first, so they neither count nor stay in memory.
   */
  create(options: {
    ttlSeconds: number;
    attrs: Record<string, unknown>;
    matchOrigin: string | null;
    parent: TokenParent;
    singleUse: boolean;
    sessionId: string;
  }): AuthToken {
    const attrsBytes = Buffer.byteLength(JSON.stringify(options.attrs));
    if (attrsBytes > MAX_TOKEN_ATTRS_BYTES) {
      throw rpcErrors.validationOne(
        'attrs',
        `Token attributes take ${attrsBytes} bytes as JSON; at most ${MAX_TOKEN_ATTRS_BYTES} are accepted`,
      );
    }
    this.sweep();
    const userId = options.parent.credentials.userId;
    let bySession = 0;
    let byUser = 0;
    for (const token of this.tokens.values()) {
      if (token.sessionId === options.sessionId) bySession++;
      if (token.parent.credentials.userId === userId) byUser++;
    }
    if (bySession >= MAX_TOKENS_PER_SESSION) throw tooMany(`This session holds ${MAX_TOKENS_PER_SESSION} live tokens`);
    if (byUser >= MAX_TOKENS_PER_USER)
      throw tooMany(`User ${options.parent.credentials.username} holds ${MAX_TOKENS_PER_USER} live tokens`);
    // `secrets.token_urlsafe(48)`: 48 random bytes, URL-safe base64 without padding, 64 characters.
    const value = randomBytes(48).toString('base64url');
    const token = new AuthToken(
      this,
      value,
      options.ttlSeconds,
      options.attrs,
      options.matchOrigin,
      options.parent,
      options.singleUse,
      options.sessionId,
    );
    this.tokens.set(value, token);
    return token;
  }

  /** Forgets every expired token. Runs on each create, so memory stays within the bounds. */
  private sweep(): void {
    for (const [value, token] of this.tokens) if (!token.valid) this.tokens.delete(value);
  }

  /**
   * The token, if it exists, has not expired and may be used from `origin` (the remote address must
   * match); an expired one is forgotten. Whether its root credential still holds is not checked
   * here: every use that lets something in goes through `liveToken` (session-check.ts), which does.
   */
  find(value: string, origin: Origin): AuthToken | null {
    const token = this.tokens.get(value);
    if (!token) return null;
    if (!token.valid) {
      this.tokens.delete(value);
      return null;
    }
    if (token.matchOrigin !== null && token.matchOrigin !== origin.address) return null;
    return token;
  }

  destroy(token: AuthToken): void {
    this.tokens.delete(token.value);
  }

  /** Every token the session made (`destroy_by_session_id`, MW/plugins/auth.py:85-86). */
  destroyBySession(sessionId: string): void {
    for (const [value, token] of this.tokens) if (token.sessionId === sessionId) this.tokens.delete(value);
  }

  get size(): number {
    return this.tokens.size;
  }
}

const tooMany = (who: string) =>
  rpcErrors.call(
    ERRNO.EAGAIN,
    `${who}, the most allowed; spend some (single-use tokens go when used) or let them expire before asking for more`,
  );
