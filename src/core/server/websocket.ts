import type { WebSocket } from 'ws';
import type { Appliance } from '../appliance/appliance.js';
import type { Origin } from '../appliance/session/session.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import { encodeResponse } from '../rpc/codec.js';
import { networkGate } from './call-gate.js';
import type { ServerLimits } from './limits.js';
import { afterPendingIo, idleTimer } from './idle-timer.js';
import type { RateLimiter } from '../appliance/session/rate-limit.js';

/** Frame limits and close codes of 25.10.1 (MW/utils/limits.py:17-34, 65-87; MW/api/base/server/ws_handler/rpc.py:224-248). */
export const ANONYMOUS_MAX = 8192;
export const AUTHENTICATED_MAX = 65536;
export const CLOSE = {
  INVALID_DATA: 1007,
  TOO_BIG: 1009,
  UNSUPPORTED: 1003,
  INTERNAL: 1011,
  GOING_AWAY: 1001,
  POLICY: 1008,
} as const;
/** How long a peer closed for not reading gets to complete the close handshake before its socket goes. */
const CLOSE_GRACE_MS = 1000;

export interface Connection {
  /** Resolves when every call in flight has been answered. */
  drain(): Promise<void>;
  close(code: number, reason: string): void;
  /** Whether the session is logged in now (it counts against the anonymous cap while not). */
  readonly authenticated: boolean;
}

export interface ConnectionDeps {
  appliance: Appliance;
  dispatcher: Dispatcher;
  limiter: RateLimiter;
  log: (line: string) => void;
  limits: ServerLimits;
  idleTimeoutSeconds?: number;
  /** Told when the session logs in or out, for the per-address count of anonymous connections. */
  onAuthChange?: (authenticated: boolean) => void;
}

/**
 * One WebSocket connection: one session, calls dispatched concurrently and answered by id,
 * notifications answered by nothing, job events pushed to subscribers.
 */
export function serveConnection(ws: WebSocket, origin: Origin, deps: ConnectionDeps): Connection {
  const { limits } = deps;
  const session = deps.appliance.createSession(origin);
  session.maxSubscriptions = limits.maxSubscriptions;
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const gate = networkGate(deps.limiter, { inFlight: () => inFlight, maxInFlight: limits.maxInFlight, log: deps.log });
  const sent = idleCutoff(ws, deps.idleTimeoutSeconds);
  // A session can also end without a message of its own (its key revoked): the watch asks again.
  const watch = sessionWatch(
    ws,
    limits,
    () => inFlight > 0,
    () => syncAuth(),
  );

  let authenticated = false;
  const syncAuth = () => {
    if (session.authenticated === authenticated) return;
    authenticated = session.authenticated;
    watch.authChanged(authenticated);
    deps.onAuthChange?.(authenticated);
  };

  // A peer that does not read its answers would otherwise make the server hold them without end.
  const closeUnread = () => {
    ws.close(CLOSE.POLICY, `More than ${limits.maxBufferedBytes} bytes of unread output`);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };

  const send = (encode: () => string) => {
    if (ws.readyState !== ws.OPEN) return;
    // The cap is on what is already queued and unread, not on the answer at hand: one answer
    // larger than the cap goes to a peer that reads it (once 828 datasets listed to more
    // than 8 MiB, and the socket was closed under the CLI). The next one finds it still unread.
    if (ws.bufferedAmount > limits.maxBufferedBytes) return closeUnread();
    ws.send(encode());
    sent();
    watch.activity();
  };
  session.notify = (method, params) => send(() => JSON.stringify({ jsonrpc: '2.0', method, params }));
  // aiohttp's `ws.close()` as auth.terminate_session calls it: code 1000, no reason (MW/plugins/auth.py:311).
  session.closeConnection = () => ws.close(1000);

  ws.on('message', (data, isBinary) => {
    // Once closing (e.g. for not reading), nothing more is dispatched.
    if (ws.readyState !== ws.OPEN) return;
    watch.activity();
    if (isBinary) {
      // `f"Invalid websocket message type: {msg.type!r}"` (MW/api/base/server/ws_handler/rpc.py:224-228):
      // the repr of aiohttp's IntEnum member.
      ws.close(CLOSE.UNSUPPORTED, 'Invalid websocket message type: <WSMsgType.BINARY: 2>');
      return;
    }
    const text = data.toString();
    if (!session.authenticated && text.length > ANONYMOUS_MAX) {
      ws.close(CLOSE.INVALID_DATA, 'Anonymous connection max message length is 8 kB');
      return;
    }
    if (text.length > AUTHENTICATED_MAX) {
      ws.close(CLOSE.TOO_BIG, 'Max message length is 64 kB');
      return;
    }
    inFlight++;
    deps.dispatcher
      .handleText(session, text, gate)
      .then((response) => {
        if (response) send(() => encodeResponse(response));
      })
      .catch((err: unknown) => {
        deps.log(`internal error on ${origin.address}: ${err instanceof Error ? err.stack : String(err)}`);
        // A fixed reason: ws refuses a close reason over 123 bytes, and the details are in the log.
        ws.close(CLOSE.INTERNAL, 'Internal error');
      })
      .finally(() => {
        inFlight--;
        syncAuth();
        if (inFlight === 0) idle?.();
      });
  });
  ws.on('ping', () => watch.activity());

  ws.on('close', () => {
    sent.stop();
    watch.stop();
    session.notify = null;
    session.closeConnection = null;
    session.dropSubscriptions();
    session.logout();
  });
  // A socket error (reset, invalid frame) ends in 'close'; there is nothing to answer.
  ws.on('error', () => undefined);

  return {
    drain: () =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            idle = resolve;
          }),
    close: (code, reason) => ws.close(code, reason),
    get authenticated() {
      return authenticated;
    },
  };
}

/**
 * The server's own time limits on a connection: one that has not logged in within
 * `loginTimeoutMs` (of opening, or of logging out), and a logged-in one on which nothing has
 * moved for `idleTimeoutMs`, is closed 1008. A call in flight (a long job wait) is not idleness.
 * Judged only after what already arrived is read (afterPendingIo): a message the peer sent while
 * this process was stalled counts. A login already in flight when the login deadline is judged
 * (its hash runs off the main thread, slow on a loaded host) is heard out, once per anonymous
 * period: its deadline moves by one more `loginTimeoutMs`, so an anonymous socket stays bounded.
 */
function sessionWatch(ws: WebSocket, limits: ServerLimits, busy: () => boolean, refresh: () => void) {
  let authenticated = false;
  let anonymousSince = Date.now();
  let lastActivity = Date.now();
  let heardOut = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = () => (authenticated ? lastActivity + limits.idleTimeoutMs : anonymousSince + limits.loginTimeoutMs);
  const judge = () => {
    if (stopped) return;
    refresh();
    if (busy()) lastActivity = Date.now();
    if (Date.now() < deadline() || (authenticated && busy())) return arm();
    if (!authenticated && busy() && !heardOut) {
      heardOut = true;
      anonymousSince = Date.now();
      return arm();
    }
    if (authenticated) ws.close(CLOSE.POLICY, `Idle for ${limits.idleTimeoutMs / 1000} s`);
    else ws.close(CLOSE.POLICY, `No login within ${limits.loginTimeoutMs / 1000} s`);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => afterPendingIo(judge), Math.max(10, deadline() - Date.now()));
    timer.unref();
  };
  arm();
  return {
    activity: () => {
      lastActivity = Date.now();
    },
    authChanged: (now: boolean) => {
      authenticated = now;
      if (!now) {
        anonymousSince = Date.now();
        heardOut = false;
      }
      arm();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * What the appliance's nginx does (its `/api` location sets no proxy_read_timeout,
 * MW/etc_files/local/nginx/nginx.conf.mako:242-255, so nginx's default of 60 s applies): a
 * WebSocket on which the server has sent nothing for that long is dropped without a close frame,
 * so the client sees 1006. Everything the server sends counts, the automatic pong to a client's
 * ping included. Returns the function to call after each send; without a timeout it does nothing.
 */
function idleCutoff(ws: WebSocket, seconds: number | undefined): (() => void) & { stop(): void } {
  if (seconds === undefined || seconds <= 0) return Object.assign(() => undefined, { stop: () => undefined });
  // Judged after pending I/O (idleTimer): a ping that came while this process was stalled is answered, not cut.
  const idle = idleTimer(seconds * 1000, () => ws.terminate());
  // ws answers a ping by itself (autoPong); the 'ping' event is where that answer goes out.
  ws.on('ping', idle.touch);
  return Object.assign(idle.touch, { stop: idle.stop });
}
