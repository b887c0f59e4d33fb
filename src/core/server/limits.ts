/**
 * What one client may hold on `stor serve`, in one place. Every value bounds memory or sockets a
 * caller could otherwise grow without end; tests lower them through `startServer`.
 */
export interface ServerLimits {
  /**
   * Answers and events queued for one WebSocket that the peer has not read. 8 MiB holds a hundred
   * of the largest answers (a 64 kB request rarely earns more than a few hundred kB back); a peer
   * this far behind is not reading, and is closed 1008 rather than buffered for. Checked before each
   * send, against what is queued already: one answer larger than this still goes out whole.
   */
  maxBufferedBytes: number;
  /** Calls running at once on one WebSocket; more are answered -32000 at once (SoftHardSemaphore(10, 20), MW/api/base/server/ws_handler/rpc.py:47, 359-364). */
  maxInFlight: number;
  /**
   * Subscriptions on one WebSocket. The CLI uses one or two; a hundred leaves room for any UI,
   * and each costs a map entry and a test on every event.
   */
  maxSubscriptions: number;
  /** A WebSocket that has not logged in within this long is closed: anonymous ones may only log in. */
  loginTimeoutMs: number;
  /**
   * A logged-in WebSocket on which nothing has moved (no message, ping, call in flight or event)
   * for this long is closed. An hour is far past any CLI pause; the proxy emulation
   * (`--ws-idle-timeout`) is separate and stricter.
   */
  idleTimeoutMs: number;
  /**
   * WebSockets from one address not (yet) logged in. Logged-in ones do not count, so idle
   * anonymous sockets cannot crowd out a client that has logged in.
   */
  maxAnonymousPerAddress: number;
  /** WebSockets in all: each is a file descriptor and a session; the default `ulimit -n` is 1024+. */
  maxConnections: number;
  /**
   * A request body read before any credential is checked (a POST /api/current body, an upload's
   * `data` part) must have arrived within this long, or it is answered 408 and its socket
   * destroyed. 30 s is ample for the 64 kB such a body may hold; bytes trickled now and then do
   * not extend it.
   */
  anonymousBodyMs: number;
  /** An upload whose bytes stop for this long is answered 408 and its socket destroyed. */
  uploadIdleMs: number;
  /** A download whose client reads nothing for this long has its socket destroyed. */
  downloadIdleMs: number;
  /**
   * Time to send a request's headers; slow-header clients (slowloris) hold a socket until then.
   * There is no total request time: an upload may take as long as its bytes keep flowing.
   */
  headersTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxBufferedBytes: 8 * 1024 * 1024,
  maxInFlight: 20,
  maxSubscriptions: 100,
  loginTimeoutMs: 30_000,
  idleTimeoutMs: 60 * 60_000,
  maxAnonymousPerAddress: 100,
  maxConnections: 1000,
  anonymousBodyMs: 30_000,
  uploadIdleMs: 60_000,
  downloadIdleMs: 60_000,
  headersTimeoutMs: 20_000,
};
