import type { WebSocket } from 'ws';
import type { Appliance } from '../appliance/appliance.js';
import type { Origin } from '../appliance/session.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import { networkGate } from './call-gate.js';
import type { RateLimiter } from './rate-limit.js';

/** Frame limits and close codes of facts §1.7. */
export const ANONYMOUS_MAX = 8192;
export const AUTHENTICATED_MAX = 65536;
export const CLOSE = { INVALID_DATA: 1007, TOO_BIG: 1009, UNSUPPORTED: 1003, INTERNAL: 1011, GOING_AWAY: 1001 } as const;

export interface Connection {
  /** Resolves when every call in flight has been answered. */
  drain(): Promise<void>;
  close(code: number, reason: string): void;
}

/**
 * One WebSocket connection: one session, calls dispatched concurrently and answered by id,
 * notifications answered by nothing, job events pushed to subscribers.
 */
export function serveConnection(
  ws: WebSocket,
  origin: Origin,
  deps: { appliance: Appliance; dispatcher: Dispatcher; limiter: RateLimiter; log: (line: string) => void; idleTimeoutSeconds?: number },
): Connection {
  const session = deps.appliance.createSession(origin);
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const gate = networkGate(deps.limiter, () => inFlight);
  const sent = idleCutoff(ws, deps.idleTimeoutSeconds);

  const send = (payload: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify(payload));
    sent();
  };
  session.notify = (method, params) => send({ jsonrpc: '2.0', method, params });

  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      ws.close(CLOSE.UNSUPPORTED, 'Invalid websocket message type: BINARY');
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
        if (response) send(response);
      })
      .catch((err: unknown) => {
        deps.log(`internal error on ${origin.address}: ${err instanceof Error ? err.stack : String(err)}`);
        // A fixed reason: ws refuses a close reason over 123 bytes, and the details are in the log.
        ws.close(CLOSE.INTERNAL, 'Internal error');
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
      });
  });

  ws.on('close', () => {
    sent.stop();
    session.notify = null;
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
  };
}

/**
 * What the appliance's nginx does (its `/api` location sets no proxy_read_timeout, facts §0): a
 * WebSocket on which the server has sent nothing for that long is dropped without a close frame,
 * so the client sees 1006. Everything the server sends counts, the automatic pong to a client's
 * ping included. Returns the function to call after each send; without a timeout it does nothing.
 */
function idleCutoff(ws: WebSocket, seconds: number | undefined): (() => void) & { stop(): void } {
  if (seconds === undefined || seconds <= 0) return Object.assign(() => undefined, { stop: () => undefined });
  let stopped = false;
  const timer = setTimeout(() => ws.terminate(), seconds * 1000);
  timer.unref();
  const reset = () => {
    if (!stopped) timer.refresh();
  };
  // ws answers a ping by itself (autoPong); the 'ping' event is where that answer goes out.
  ws.on('ping', reset);
  return Object.assign(reset, {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  });
}
