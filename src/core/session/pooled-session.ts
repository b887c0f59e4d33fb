import { E } from '../error-catalogue.js';
import { ERRNO, isRoleDenial, RpcError, StorError } from '../errors.js';
import { apiKeyLogin, type LoginStrategy } from '../transport/login-strategies.js';
import { timedOut } from '../transport/network-errors.js';
import { RemoteTransport } from '../transport/remote.js';
import type { PooledTarget } from './opener.js';

/**
 * Whether the appliance refused a call because the connection is no longer logged in: it re-checks
 * the credential on every incoming message and logs a session out whose credential no longer holds
 * (MW/plugins/auth.py:183-193); the call then meets `CallError('Not authenticated', ENOTAUTHENTICATED)`
 * (MW/main.py:907-909), errno 207, before anything of the method ran. Our emulator answers the same
 * (rpcErrors.notAuthenticated, src/core/appliance/session/session-check.ts).
 */
export function refusedAsNotAuthenticated(err: unknown): boolean {
  return err instanceof RpcError && err.errno === ERRNO.ENOTAUTHENTICATED;
}

/**
 * Methods whose answer is fixed for as long as the appliance's middleware process runs, and so for
 * the life of one connection to it: `privilege.roles` lists `ROLES`, a module constant
 * (MW/plugins/account_/privilege_roles.py:31-41, MW/role.py), and the release cannot change
 * without a restart, which drops the connection (MW/plugins/system/product.py). `stor.emulation`
 * is stor's emulator's settings, read once when `stor serve` opens its state. A pooled connection
 * answers them once; every later command on it gets a copy of that answer, keyed by method and
 * params. A new connection asks again.
 */
const FIXED_FOR_CONNECTION = new Set(['privilege.roles', 'system.version', 'system.version_short', 'stor.emulation']);

/**
 * A command's own copy of a remembered answer, so that nothing it does to it reaches the next
 * command. A string (`system.version_short`, asked by every target of a fan-out for its heading)
 * cannot be changed and is its own copy: structuredClone of it still serializes and deserializes
 * it, once per target in the agent (bench/HISTORY.md, "where the warm fan-out's wall time goes").
 */
function copyOf<T>(answer: T): T {
  return answer === null || typeof answer !== 'object' ? answer : structuredClone(answer);
}

/**
 * How the pool opens a connection, logged in with `login`: the session's one strategy for every
 * connection it opens, so that what a login learnt (the appliance offered SCRAM: the key is withheld
 * from then on, login-strategies.ts) holds for every later connection of the session.
 */
export type Connector = (
  target: PooledTarget,
  timeoutSeconds: number,
  login: LoginStrategy,
) => Promise<RemoteTransport>;

export const connectWithKey: Connector = (target, timeoutSeconds, login) =>
  RemoteTransport.open({
    endpoint: target.endpoint,
    login,
    timeoutSeconds,
    insecure: target.insecure,
    ...(target.ca ? { ca: target.ca } : {}),
    ...(target.profile ? { profile: target.profile } : {}),
    ...(target.keepaliveSeconds !== undefined ? { keepaliveSeconds: target.keepaliveSeconds } : {}),
    // No trace: the connection outlives the command whose stderr a trace would write to.
    pooled: true,
  });

/**
 * One pooled, logged-in connection and what `stor session list` shows of it. The connection is
 * opened once however many commands ask at once, and replaced (one login) on the next use after
 * it was lost or logged out.
 */
export class PooledSession {
  readonly createdAt = Date.now();
  lastUsed = Date.now();
  calls = 0;
  leases = 0;
  /** auth.me's pw_name, asked the first time `list` wants it. */
  user: string | undefined;
  private current: { opened: Promise<RemoteTransport>; transport?: RemoteTransport } | undefined;
  private closed = false;
  /** When each connection's login was done: a call refused for a role is asked again only on a newer login. */
  private readonly loggedInAt = new WeakMap<RemoteTransport, number>();
  /** Calls under way on each connection, so that a replaced one is closed only once they are answered. */
  private readonly busy = new Map<RemoteTransport, number>();
  private readonly retired = new Set<RemoteTransport>();
  /** Answers of FIXED_FOR_CONNECTION methods, per connection and `method params`: the ask, and its answer once it came. */
  private readonly fixed = new WeakMap<RemoteTransport, Map<string, FixedAnswer>>();
  /** The last login (or connection) attempt failed: a revoked, expired or refused key, or an appliance out of reach. */
  private failed = false;
  /**
   * How every connection of this session logs in, one strategy for them all: once the appliance
   * offered SCRAM, a later connection whose server offers none (a downgrade on the way) gets no key.
   */
  readonly login: LoginStrategy;

  constructor(
    readonly target: PooledTarget,
    private readonly connector: Connector,
    /**
     * Called (by the pool, which then forgets and closes this session) once no command holds it
     * and its last login failed: a session whose key the appliance refused keeps neither the key
     * nor a place in `stor session list`. The next command with that key logs in anew.
     */
    private readonly onDead: () => void = () => undefined,
  ) {
    this.login = apiKeyLogin(target.apiKey, target.username, target.scramOnly === true);
  }

  /** The live connection, opening (and logging in) a new one when there is none or it was lost. */
  async connection(timeoutSeconds: number): Promise<RemoteTransport> {
    if (this.closed) throw sessionClosed(this.target);
    const held = this.current;
    if (held && (held.transport === undefined || held.transport.usable)) return held.opened;
    if (held?.transport) void held.transport.close();
    const entry: { opened: Promise<RemoteTransport>; transport?: RemoteTransport } = {
      opened: this.connector(this.target, timeoutSeconds, this.login),
    };
    this.current = entry;
    try {
      entry.transport = await entry.opened;
    } catch (err) {
      if (this.current === entry) {
        this.current = undefined;
        this.failed = true;
        this.forgetIfDead();
      }
      throw err;
    }
    this.loggedInAt.set(entry.transport, performance.now());
    if (this.current === entry) this.failed = false;
    if (this.closed) {
      void entry.transport.close();
      throw sessionClosed(this.target);
    }
    return entry.transport;
  }

  /**
   * A call through the shared connection. Only a call the appliance refused before running it is
   * tried again, once, after one new login:
   * - refused as not authenticated: the connection was logged out (a revoked or expired key, a
   *   user who lost roles); that login fails as a command's own would (KEY_REJECTED);
   * - refused for want of a role (isRoleDenial) on a connection logged in before this call began:
   *   the appliance freezes a session's privilege at login (src/core/appliance/session/session.ts), so a
   *   role granted since then reaches only a new login, which a command of its own would have
   *   made. The new connection then serves every command; the old one is closed once the calls
   *   under way on it are answered.
   * Nothing else is retried.
   */
  async call<T>(method: string, params: readonly unknown[], timeoutSeconds: number): Promise<T> {
    const startedAt = performance.now();
    this.lastUsed = Date.now();
    this.calls++;
    const conn = await this.connection(timeoutSeconds);
    try {
      if (FIXED_FOR_CONNECTION.has(method)) return await this.fixedAnswer<T>(conn, method, params, timeoutSeconds);
      return await this.using(conn, () => conn.call<T>(method, params, timeoutSeconds));
    } catch (err) {
      const loggedOut = refusedAsNotAuthenticated(err);
      const stalePrivilege =
        err instanceof RpcError && isRoleDenial(err) && (this.loggedInAt.get(conn) ?? Infinity) < startedAt;
      if (!loggedOut && !stalePrivilege) throw err;
      this.retire(conn);
      const fresh = await this.connection(timeoutSeconds);
      // Awaited here, not returned: the finally marks the session used when the retried call ends, not as it starts.
      return await this.using(fresh, () => fresh.call<T>(method, params, timeoutSeconds));
    } finally {
      this.lastUsed = Date.now();
    }
  }

  /**
   * The command's own copy (copyOf) of the connection's answer to a FIXED_FOR_CONNECTION call,
   * asked once; a failed call is not remembered.
   */
  private async fixedAnswer<T>(
    conn: RemoteTransport,
    method: string,
    params: readonly unknown[],
    timeoutSeconds: number,
  ): Promise<T> {
    let answers = this.fixed.get(conn);
    if (answers === undefined) this.fixed.set(conn, (answers = new Map()));
    const key = `${method} ${JSON.stringify(params)}`;
    const known = answers.get(key);
    // Answered already (every target of a warm fan-out asks its release): no timer to set and
    // clear, and an object's copy parsed from its JSON text, made once (the answer was parsed from
    // JSON, so the text holds all of it), rather than structuredClone's serialization per copy.
    if (known?.answered) return (known.text === undefined ? known.answer : JSON.parse(known.text)) as T;
    // Another command's ask, still unanswered: this command waits no longer than its own --timeout.
    if (known !== undefined)
      return copyOf(
        await withinTimeout(known.asked as Promise<T>, this.target.endpoint.display, method, timeoutSeconds),
      );
    const asked = this.using(conn, () => conn.call<T>(method, params, timeoutSeconds));
    const entry: FixedAnswer = { asked, answered: false };
    answers.set(key, entry);
    asked.then(
      (answer) => {
        entry.answer = answer;
        if (answer !== null && typeof answer === 'object') entry.text = JSON.stringify(answer);
        entry.answered = true;
      },
      () => answers.delete(key),
    );
    return copyOf(await asked);
  }

  private async using<T>(conn: RemoteTransport, work: () => Promise<T>): Promise<T> {
    this.busy.set(conn, (this.busy.get(conn) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = this.busy.get(conn)! - 1;
      if (left > 0) this.busy.set(conn, left);
      else {
        this.busy.delete(conn);
        if (this.retired.delete(conn)) void conn.close();
      }
    }
  }

  /** An upload or download on the live connection, which is not closed under it should the connection be replaced meanwhile. */
  async transfer<T>(timeoutSeconds: number, work: (conn: RemoteTransport) => Promise<T>): Promise<T> {
    this.lastUsed = Date.now();
    this.calls++;
    const conn = await this.connection(timeoutSeconds);
    return this.using(conn, () => work(conn));
  }

  /**
   * Forgets `conn` when it is still the current connection, so that the next use logs in again,
   * and closes it once no call is under way on it. Not current: another command retired it already.
   */
  private retire(conn: RemoteTransport): void {
    if (this.current?.transport !== conn) return;
    this.current = undefined;
    if (this.busy.has(conn)) this.retired.add(conn);
    else void conn.close();
  }

  /** A command's lease on this session ended. */
  release(): void {
    this.leases--;
    this.forgetIfDead();
  }

  private forgetIfDead(): void {
    if (this.leases === 0 && this.failed && this.current === undefined && !this.closed) this.onDead();
  }

  /** The logged-in connection calls go through now, if any. */
  get connectionNow(): RemoteTransport | undefined {
    return this.current?.transport;
  }

  /** Whether a connection is open or opening (a session whose login failed has none). */
  get hasConnection(): boolean {
    return this.current !== undefined;
  }

  /** Whether the connection is logged in and open now; a lost one is replaced on next use. */
  get live(): boolean {
    return this.current?.transport?.usable ?? false;
  }

  async close(): Promise<void> {
    this.closed = true;
    const held = this.current;
    this.current = undefined;
    const transport = await held?.opened.catch(() => undefined);
    await transport?.close();
  }
}

/**
 * A FIXED_FOR_CONNECTION ask, shared by the commands on its connection; `answer` once `answered`,
 * and an object answer's JSON text, from which each later command's copy is parsed.
 */
interface FixedAnswer {
  asked: Promise<unknown>;
  answered: boolean;
  answer?: unknown;
  text?: string;
}

/** `shared`, or TIMEOUT after `timeoutSeconds` as the transport's own call would fail (transport/remote.ts send). */
function withinTimeout<T>(shared: Promise<T>, where: string, method: string, timeoutSeconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(where, method, timeoutSeconds)), timeoutSeconds * 1000);
  });
  return Promise.race([shared, limit]).finally(() => clearTimeout(timer));
}

/** A command still holding a lease on a session that `stor session stop` or a logout closed. */
function sessionClosed(target: PooledTarget): StorError {
  return new StorError(
    E.CONNECTION_CLOSED,
    `the session to ${target.endpoint.display} was closed (stor session stop, or a logout)`,
    {
      hint: 'run the command again: it logs in anew',
    },
  );
}
