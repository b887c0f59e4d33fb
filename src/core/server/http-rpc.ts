import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Appliance } from '../appliance/appliance.js';
import type { Origin, Session } from '../appliance/session/session.js';
import { RpcError, rpcErrors } from '../errors.js';
import { loginWithApiKey, rateLimitExceeded } from '../appliance/session/login.js';
import { bearerKey } from './bearer.js';
import { decodeText, encodeResponse, errorResponse, type Decoded, type RpcResponse } from '../rpc/codec.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import { networkGate } from './call-gate.js';
import { errorReason, keyIdOf, loginLine } from './login-log.js';
import type { RateLimiter } from '../appliance/session/rate-limit.js';
import { AUTHENTICATED_MAX } from './websocket.js';

export function sendText(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  // Already answered (the body deadline, armBodyDeadline): the first answer stands.
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

interface HttpRpcDeps {
  appliance: Appliance;
  dispatcher: Dispatcher;
  limiter: RateLimiter;
  log: (line: string) => void;
}

/** Each request's bearer key logs its own session in; one line in the log per request (login-log.ts). */
async function bearerLogin(deps: HttpRpcDeps, session: Session, key: string): Promise<void> {
  const event = { via: 'POST /api/current bearer key', keyId: keyIdOf(key), address: session.origin.address };
  let outcome;
  try {
    outcome = await loginWithApiKey(deps.appliance, session, key);
  } catch (err) {
    // A broken privilege fails here with 25.10.1's RecursionError, answered like any call error.
    deps.log(
      loginLine({
        ...event,
        outcome: 'refused',
        reason: err instanceof RpcError ? errorReason(err.toJSON()) : 'internal error',
      }),
    );
    throw err;
  }
  if (outcome === 'SUCCESS') deps.log(loginLine({ ...event, username: session.credentials?.username, outcome: 'ok' }));
  else
    deps.log(
      loginLine({ ...event, outcome: 'refused', reason: outcome === 'LIMITED' ? rateLimitExceeded().reason : outcome }),
    );
  if (outcome === 'LIMITED') throw rateLimitExceeded();
}

/**
 * `POST /api/current` (the seed's form): one JSON-RPC request per body, the API key as a bearer
 * credential on each request, composition and authorization per request. JSON-RPC errors
 * travel with HTTP 200; only transport problems get other statuses.
 */
export async function handleHttpRpc(
  req: IncomingMessage,
  res: ServerResponse,
  origin: Origin,
  deps: HttpRpcDeps,
): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > AUTHENTICATED_MAX) {
        // The socket is destroyed below: say so, or a keep-alive client reuses it for its next request.
        res.setHeader('connection', 'close');
        sendText(res, 413, `413: Request body larger than ${AUTHENTICATED_MAX} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    // The body broke off (the client went, or its deadline destroyed the socket): nobody to answer.
    return;
  }
  if (res.headersSent) return;
  const body = Buffer.concat(chunks);
  // Decoding invalid UTF-8 would silently turn ids and params into U+FFFD (a WebSocket closes 1007).
  const decoded: Decoded = isUtf8(body)
    ? decodeText(body.toString('utf8'))
    : { ok: false, error: rpcErrors.parse('Invalid UTF-8 in the request body'), id: null, reply: true };
  let response: RpcResponse | null;
  if (!decoded.ok) {
    response = decoded.reply ? errorResponse(decoded.id, decoded.error) : null;
  } else {
    const session = deps.appliance.createSession(origin);
    const key = bearerKey(req);
    try {
      if (key !== undefined) await bearerLogin(deps, session, key);
      response = await deps.dispatcher.run(session, decoded.request, networkGate(deps.limiter, { log: deps.log }));
    } catch (err) {
      const error = err instanceof RpcError ? err : rpcErrors.exception('Exception', String(err));
      response = decoded.request.hasId ? errorResponse(decoded.request.id, error) : null;
    } finally {
      // The session lives for this one request: nothing it set up may outlive it.
      session.logout();
    }
  }
  if (response === null) {
    res.writeHead(204).end();
    return;
  }
  sendText(res, 200, encodeResponse(response), 'application/json');
}
