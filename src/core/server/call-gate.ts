import type { MethodContract } from '../contract/method.js';
import type { Session } from '../appliance/session/session.js';
import { ERRNO, rpcErrors } from '../errors.js';
import type { CallGate } from '../rpc/dispatcher.js';
import type { RateLimiter } from '../appliance/session/rate-limit.js';
import { loginLineForCall } from './login-log.js';

export interface NetworkGateOptions {
  /** Calls in flight on this connection, and the most allowed (a WebSocket's; absent over HTTP). */
  inFlight?: () => number;
  maxInFlight?: number;
  /** The server's operator log: one line per login, successful or refused (login-log.ts). */
  log?: (line: string) => void;
}

/**
 * The network's own checks, between method lookup and authentication (the order of
 * MW/api/base/server/ws_handler/rpc.py:306-364). The per-(method, address) limit applies to
 * anonymous calls, as on 25.10.1, and to `auth.login*` from any session.
 */
export function networkGate(limiter: RateLimiter, options: NetworkGateOptions = {}): CallGate {
  const { inFlight, maxInFlight = 20, log } = options;
  return {
    beforeCall(method: MethodContract, session: Session) {
      if (inFlight && inFlight() > maxInFlight) throw rpcErrors.tooManyCalls(maxInFlight);
      // Only a caller not logged in is counted, on any rate-limited method, logins included: "Do not
      // rate limit authenticated users" (MW/main.py:875-877 at TS-25.10.1, :1017-1019 on stable/26).
      // Failed key checks are bounded per credential either way (session/key-check-limits.ts).
      if (method.access.kind === 'public' && method.access.rateLimited && !session.authenticated) {
        if (!limiter.hit(method.name, session.origin.address)) throw rpcErrors.call(ERRNO.EBUSY, 'Rate Limit Exceeded');
      }
    },
    ...(log
      ? {
          afterCall(request, session, loginIdBefore, outcome) {
            const line = loginLineForCall(request, session, loginIdBefore, outcome);
            if (line !== null) log(line);
          },
        }
      : {}),
  };
}
