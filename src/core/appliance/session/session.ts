import { randomUUID } from 'node:crypto';
import type { AccountsSnapshot } from '../accounts/accounts.js';

/** AAL1: a login is good for 30 days, then the client must log in again (MW/utils/auth.py:71-72). */
export const MAX_SESSION_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** Where a session's calls come from: decides whether a plain API key may be used (MW/plugins/auth.py:936-956, MW/utils/origin.py:135). */
export interface Origin {
  transport: 'embedded' | 'websocket' | 'http' | 'upload';
  /** Peer address, e.g. `127.0.0.1`; `local` for the embedded target. */
  address: string;
  /** TLS, loopback or in-process: a key used here is not exposed on the network. */
  secure: boolean;
  /**
   * Present only on a TLS WebSocket: the tls-server-end-point binding of the certificate the
   * server presents. 26 refuses a channel-bound SCRAM login without TLS (`origin.ssl`,
   * MW/utils/account/authenticator.py:464-468 at stable/26) and checks the binding against this.
   */
  tlsEndPoint?: Buffer;
  /** The peer's port, for `auth.sessions`' `origin` (`addr:port`, MW/utils/origin.py:82-88). */
  port?: number;
}

export interface AllowlistEntry {
  method: string;
  resource: string;
}

/** The privileges bound to a user, folded together at login (MW/plugins/account_/privilege.py:374-396). */
export interface ComposedPrivilege {
  roles: ReadonlySet<string>;
  allowlist: AllowlistEntry[];
  web_shell: boolean;
  webui_access: boolean;
}

/** The session a token stands for: the one that generated it, or that one's own parent. */
export interface TokenParent {
  credentials: SessionCredentials;
  /** The parent login's `login_id`, which `auth.sessions` shows of a token session's parent (MW/auth.py:280-289). */
  loginId?: string | null;
  privilege: ComposedPrivilege;
  accountAttributes: string[];
}

/** What a session logged in with a token holds of it (the token table's AuthToken, tokens.ts). */
export interface SessionToken {
  readonly parent: TokenParent;
  /** Not expired: used within its ttl. */
  readonly valid: boolean;
  notifyUsed(): void;
  destroy(): void;
}

export interface SessionCredentials {
  type: 'API_KEY' | 'LOGIN_PASSWORD' | 'LOGIN_TWOFACTOR' | 'TOKEN';
  userId: number;
  username: string;
  /** The key as it was at login: a reset changes the hash, an update the expiry. Never sent to a client. */
  apiKey?: { id: number; name: string; keyHash: string; expiresAt: number | null };
  /** A key session that logged in with SCRAM (26), and whether the exchange was channel-bound. */
  scram?: { channelBound: boolean };
  /** The token a TOKEN session logged in with; the user and privilege are its parent's. */
  token?: SessionToken;
  loginAt: number;
}

/**
 * A password login waiting for its one-time code (25.10.1's per-connection `AuthenticationContext`):
 * the password was right, and what the session will hold once the code is is already composed.
 */
export interface PendingOtp {
  userId: number;
  username: string;
  privilege: ComposedPrivilege;
  accountAttributes: string[];
  /** Wrong codes so far; 25.10.1 allows MAX_OTP_ATTEMPTS (3) retries. */
  failures: number;
}

/** A SCRAM exchange after its server-first-message, waiting for the client's proof. */
export interface ScramPending {
  keyId: number;
  userId: number;
  gs2Header: string;
  clientFirstBare: string;
  serverFirst: string;
  nonce: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

export interface ConnectionOptions {
  legacy_jobs: boolean;
  private_methods: boolean;
  py_exceptions: boolean;
}

/**
 * One connection's authentication state: a WebSocket, an HTTP request, or the embedded target.
 * The composed privilege is frozen at login; later edits that grant more apply to new sessions
 * only, edits that take something away end the session (session-check.ts).
 */
export class Session {
  /**
   * Both ids are drawn when first read, not when the session starts or logs in: a UUID drawn later
   * is as random, and an embedded command that reads neither never loads node:crypto (some fifty
   * of Node's internal modules) for them. `undefined`: logged in, its id not drawn yet.
   */
  #id: string | undefined;
  #loginId: string | null | undefined = null;
  credentials: SessionCredentials | null = null;
  privilege: ComposedPrivilege | null = null;
  accountAttributes: string[] = [];
  pendingOtp: PendingOtp | null = null;
  /**
   * 26's per-connection authentication context for SCRAM (MW/plugins/auth_/login_ex_impl.py:426-510
   * at stable/26): `null` as a connection starts or after a success (no PAM handle), `idle` after
   * a login attempt that left its handle, or the exchange waiting for CLIENT_FINAL_MESSAGE.
   */
  scram: ScramPending | 'idle' | null = null;
  options: ConnectionOptions = { legacy_jobs: true, private_methods: false, py_exceptions: false };
  /** Where server-initiated notifications go; null where the transport has no push channel. */
  notify: ((method: string, params: unknown) => void) | null = null;
  /** Closes the connection (`auth.terminate_session`); null where there is none to close (the embedded target). */
  closeConnection: (() => void) | null = null;
  /** Subscription id → the event name subscribed to (`*` for every event). */
  readonly subscriptions = new Map<string, string>();
  /** At most this many subscriptions at once; the server sets it per connection (limits.ts). */
  maxSubscriptions = Infinity;
  /** The accounts the credential was last found valid against; another snapshot means a re-check (session-check.ts). */
  checkedAgainst: AccountsSnapshot | null = null;

  /** When the connection first logged in (`Session.created_at`, MW/plugins/auth.py:199-214); null before. */
  loggedInAt: number | null = null;

  constructor(
    readonly origin: Origin,
    /** The appliance's list of logged-in connections (`auth.sessions`), for connections it lists. */
    private readonly live: { added(session: Session): void; removed(session: Session): void } | null = null,
  ) {}

  get id(): string {
    return (this.#id ??= randomUUID());
  }

  /** Each login's own id, as a job's credentials report it (`login_id`, MW/auth.py:96); null before a login. */
  get loginId(): string | null {
    if (this.#loginId === undefined) this.#loginId = randomUUID();
    return this.#loginId;
  }

  get authenticated(): boolean {
    return this.credentials !== null && this.privilege !== null;
  }

  get isFullAdmin(): boolean {
    return this.privilege?.roles.has('FULL_ADMIN') ?? false;
  }

  hasRole(role: string): boolean {
    return this.privilege?.roles.has(role) ?? false;
  }

  /** FULL_ADMIN, or any of `roles` among the effective roles (an empty list means FULL_ADMIN only). */
  holdsAny(roles: readonly string[]): boolean {
    return this.isFullAdmin || roles.some((r) => this.hasRole(r));
  }

  establish(credentials: SessionCredentials, privilege: ComposedPrivilege, accountAttributes: string[]): void {
    this.credentials = credentials;
    this.privilege = privilege;
    this.accountAttributes = accountAttributes;
    this.#loginId = undefined;
    this.checkedAgainst = null;
    // A login on a logged-in connection replaces its credentials; the session stays (MW/plugins/auth.py:124-135).
    if (this.loggedInAt === null) {
      this.loggedInAt = Date.now();
      this.live?.added(this);
    }
  }

  /**
   * A token credential's own check (`TokenSessionManagerCredentials.is_valid`): an expired token
   * logs the session out, a valid one is marked used. The account checks are in session-check.ts.
   */
  revalidateToken(): void {
    const token = this.credentials?.token;
    if (!token) return;
    if (token.valid) token.notifyUsed();
    else this.logout();
  }

  /** Ends every subscription: on logout and when the connection closes (MW/plugins/auth.py:1219, MW/api/base/server/ws_handler/rpc.py:267). */
  dropSubscriptions(): void {
    this.subscriptions.clear();
  }

  logout(): void {
    // A token session's logout destroys its token (TokenSessionManagerCredentials.logout, MW/auth.py).
    this.credentials?.token?.destroy();
    this.dropSubscriptions();
    this.credentials = null;
    this.privilege = null;
    this.accountAttributes = [];
    this.#loginId = null;
    this.checkedAgainst = null;
    if (this.loggedInAt !== null) {
      this.loggedInAt = null;
      this.live?.removed(this);
    }
  }
}
