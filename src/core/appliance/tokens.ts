import { randomBytes } from 'node:crypto';
import type { ComposedPrivilege, Origin, SessionCredentials } from './session.js';

/** The session a token stands for: the one that generated it, or that one's own parent. */
export interface TokenParent {
  credentials: SessionCredentials;
  privilege: ComposedPrivilege;
  accountAttributes: string[];
}

/**
 * An `auth.generate_token` token (MW/plugins/auth.py:51-117). It lives in memory only, as on the
 * appliance: a restart forgets every token. `ttl` is an inactivity window, not a lifetime: each
 * use of a session logged in with the token starts it again (`notify_used`).
 */
export class AuthToken {
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

  /** `parentHolds` tells whether a token's root credential is still valid (session-check.ts). */
  constructor(private readonly parentHolds: (parent: TokenParent) => boolean) {}

  create(options: { ttlSeconds: number; attrs: Record<string, unknown>; matchOrigin: string | null; parent: TokenParent; singleUse: boolean }): AuthToken {
    // `secrets.token_urlsafe(48)`: 48 random bytes, URL-safe base64 without padding, 64 characters.
    const value = randomBytes(48).toString('base64url');
    const token = new AuthToken(this, value, options.ttlSeconds, options.attrs, options.matchOrigin, options.parent, options.singleUse);
    this.tokens.set(value, token);
    return token;
  }

  /**
   * The token, if it exists, has not expired, may be used from `origin` (the remote address must
   * match) and its root credential still holds. Every use of a token comes through here: login,
   * upload and download. A token whose credential is gone is forgotten, as an expired one is.
   */
  get(value: string, origin: Origin): AuthToken | null {
    const token = this.tokens.get(value);
    if (!token) return null;
    if (!token.valid) {
      this.tokens.delete(value);
      return null;
    }
    if (token.matchOrigin !== null && token.matchOrigin !== origin.address) return null;
    if (!this.parentHolds(token.parent)) {
      this.tokens.delete(value);
      return null;
    }
    return token;
  }

  destroy(token: AuthToken): void {
    this.tokens.delete(token.value);
  }
}
