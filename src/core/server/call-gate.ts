import type { MethodDefinition } from '../appliance/method.js';
import type { Session } from '../appliance/session.js';
import { ERRNO, rpcErrors } from '../errors.js';
import type { CallGate } from '../rpc/dispatcher.js';
import type { RateLimiter } from './rate-limit.js';

/** The network's own checks, between method lookup and authentication (facts §1.8 order). */
export function networkGate(limiter: RateLimiter, inFlight?: () => number, maxInFlight = 20): CallGate {
  return {
    beforeCall(method: MethodDefinition, session: Session) {
      if (inFlight && inFlight() > maxInFlight) throw rpcErrors.tooManyCalls(maxInFlight);
      if (method.access.kind === 'public' && method.access.rateLimited && !session.authenticated) {
        if (!limiter.hit(method.name, session.origin.address)) throw rpcErrors.call(ERRNO.EBUSY, 'Rate Limit Exceeded');
      }
    },
  };
}
