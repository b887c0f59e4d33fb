import type { TraceSink } from '../transport/trace.js';
import type { Transport } from '../transport/transport.js';
import { keySha256 } from './key-hash.js';
import { PoolLease } from './lease.js';
import type { PooledTarget, SessionOpener } from './opener.js';
import { poolKey } from './pool-key.js';
import { connectWithKey, PooledSession, type Connector } from './pooled-session.js';
import type { SessionInfo } from './protocol.js';

/** How long `list` waits for auth.me of a session whose user it does not know yet. */
const WHO_SECONDS = 5;

/**
 * The session agent's logged-in connections, one per (URL, key, TLS settings, keepalive)
 * (poolKey). A command run in the agent opens its remote target here (CommandSetting.sessions): the first
 * opens and logs in, the others take leases on the same connection. Keys stay in memory only for
 * as long as their session is in the pool.
 */
export class SessionPool implements SessionOpener {
  private readonly sessions = new Map<string, PooledSession>();
  /**
   * Each pooled key's SHA-256 (poolKey names a session by it), kept while a session of that key is
   * in the pool (pruneKeyHashes), so a command on a pooled connection does not hash its key again.
   * It holds no key the sessions do not already hold.
   */
  private readonly keyHashes = new Map<string, string>();

  constructor(private readonly connector: Connector = connectWithKey) {}

  /**
   * A lease on the connection for `target`, logged in before it is returned: a command whose key
   * is refused fails here, as its own login would have. A session whose login failed leaves the
   * pool once no command holds it (here, or when a later call's new login failed), so its key is
   * not kept.
   */
  async open(target: PooledTarget, timeoutSeconds: number, trace?: TraceSink): Promise<Transport> {
    let keyHash = this.keyHashes.get(target.apiKey);
    if (keyHash === undefined) this.keyHashes.set(target.apiKey, (keyHash = keySha256(target.apiKey)));
    const key = poolKey(target, keyHash);
    let session = this.sessions.get(key);
    if (!session) {
      const created: PooledSession = new PooledSession(target, this.connector, () => this.forget(key, created));
      session = created;
      this.sessions.set(key, session);
    }
    const lease = new PoolLease(session, this.connector, timeoutSeconds, trace, target);
    try {
      await session.connection(timeoutSeconds);
    } catch (err) {
      // The last lease of a session whose login failed: the pool forgets it (PooledSession.release).
      await lease.close();
      throw err;
    }
    trace?.(`session: a lease on the session agent's connection to ${target.endpoint.display}`);
    return lease;
  }

  /** A logged-in connection for `target` is open now (SessionOpener.isOpen). */
  isOpen(target: PooledTarget): boolean {
    const keyHash = this.keyHashes.get(target.apiKey);
    if (keyHash === undefined) return false;
    return this.sessions.get(poolKey(target, keyHash))?.live === true;
  }

  /** Leases held by running commands, across every session. */
  get activeLeases(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.leases;
    return n;
  }

  /** What `stor session list` shows; the user is asked of the appliance once per session (auth.me). */
  async list(): Promise<SessionInfo[]> {
    const now = Date.now();
    const sessions = [...this.sessions.values()];
    await Promise.all(
      sessions.map(async (s) => {
        if (s.user !== undefined || !s.hasConnection) return;
        try {
          const conn = await s.connection(WHO_SECONDS);
          const me = await conn.call<{ pw_name?: unknown }>('auth.me', [], WHO_SECONDS);
          if (typeof me?.pw_name === 'string') s.user = me.pw_name;
        } catch {
          // Unknown for now; asked again by the next list.
        }
      }),
    );
    return sessions.map((s) => ({
      target: s.target.endpoint.display,
      ...(s.user !== undefined ? { user: s.user } : {}),
      ageSeconds: Math.floor((now - s.createdAt) / 1000),
      idleSeconds: Math.floor((now - s.lastUsed) / 1000),
      calls: s.calls,
      active: s.leases,
      connected: s.live,
    }));
  }

  /**
   * Closes the sessions to `url` (an Endpoint's display), or only those logged in with the key
   * whose SHA-256 is `keyHash`; returns how many. Their keys leave memory with them.
   */
  async close(url: string, keyHash?: string): Promise<number> {
    const closing: PooledSession[] = [];
    for (const [key, s] of this.sessions) {
      if (s.target.endpoint.display !== url) continue;
      if (keyHash !== undefined && this.keyHashOf(s.target.apiKey) !== keyHash) continue;
      this.sessions.delete(key);
      closing.push(s);
    }
    this.pruneKeyHashes();
    await Promise.all(closing.map((s) => s.close()));
    return closing.length;
  }

  /** A session no command holds whose login failed (a revoked key, say): out of the pool, and its key with it. */
  private forget(key: string, session: PooledSession): void {
    if (this.sessions.get(key) !== session) return;
    this.sessions.delete(key);
    this.pruneKeyHashes();
    void session.close();
  }

  private keyHashOf(apiKey: string): string {
    return this.keyHashes.get(apiKey) ?? keySha256(apiKey);
  }

  /** Forgets the hash of every key no pooled session holds any longer: the key leaves memory with its sessions. */
  private pruneKeyHashes(): void {
    const held = new Set<string>();
    for (const s of this.sessions.values()) held.add(s.target.apiKey);
    for (const apiKey of this.keyHashes.keys()) if (!held.has(apiKey)) this.keyHashes.delete(apiKey);
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.keyHashes.clear();
    await Promise.all(all.map((s) => s.close()));
  }
}
