import type { IncomingMessage } from 'node:http';
import type { Appliance } from '../appliance/appliance.js';
import { loginWithApiKey, type LoginOutcome } from '../appliance/auth.js';
import type { Session } from '../appliance/session.js';
import type { RateLimiter } from './rate-limit.js';

/** The bearer credential of a request, if any. */
export function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

/** The limiter's name for failed bearer checks; they share the anonymous-login budget's size. */
const BEARER = 'bearer';

/**
 * Logs a request's bearer key in. Every check costs a slow hash, so an address whose last 20
 * checks in a minute failed is refused before hashing (`limited`): guessing keys over HTTP gets
 * no further than guessing them with `auth.login_with_api_key`.
 */
export function bearerLogin(appliance: Appliance, limiter: RateLimiter, session: Session, key: string): LoginOutcome | 'limited' {
  const address = session.origin.address;
  if (limiter.blocked(BEARER, address)) return 'limited';
  const outcome = loginWithApiKey(appliance, session, key);
  if (outcome !== 'SUCCESS') limiter.hit(BEARER, address);
  return outcome;
}
