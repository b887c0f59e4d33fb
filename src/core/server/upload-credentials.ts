import type { IncomingMessage } from 'node:http';
import type { Appliance } from '../appliance/appliance.js';
import { loginWithApiKey, loginWithPassword, loginWithTokenFor } from '../appliance/session/login.js';
import type { Origin, Session } from '../appliance/session/session.js';
import { readGlobalTwoFactor } from '../appliance/accounts/two-factor.js';
import { mayCallForUpload, unhandledInHandler, UploadRefused } from '../appliance/jobs/upload.js';
import { findApiKey } from '../store/api-keys.js';
import { RpcError } from '../errors.js';
import type { RateLimiter } from '../appliance/session/rate-limit.js';
import { keyIdOf, loginLine } from './login-log.js';

/** What `parse_credentials` finds in a request (MW/restful.py:30-71). */
type UploadCredentials =
  | { kind: 'token'; token: string }
  | { kind: 'password'; username: string; password: string }
  | { kind: 'api-key'; key: string }
  | null;

/** aiohttp's answer to an exception nobody caught (a Basic value without `:`: its ValueError at MW/restful.py:54 is not one of those caught at 55-58). */
const SERVER_ERROR = '500 Internal Server Error\n\nServer got itself in trouble';

/**
 * Python's `base64.b64decode(..., validate=False)` then `.decode('utf-8')`: characters outside the
 * alphabet are dropped, bad padding or bytes that are not UTF-8 are a 400.
 */
function decodeBasic(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9+/=]/g, '');
  const body = cleaned.replace(/=+$/, '');
  if (cleaned.length % 4 !== 0 || body.includes('=') || body.length % 4 === 1)
    throw new UploadRefused(400, '400: Bad Request');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(body, 'base64'));
  } catch {
    throw new UploadRefused(400, '400: Bad Request');
  }
}

/**
 * The header first: `Token <t>`, `Basic <base64(user:password)>`, `Bearer <api key>`; any other
 * scheme counts as no credentials. Only without a header does `?auth_token=` count.
 */
export function parseUploadCredentials(req: IncomingMessage): UploadCredentials {
  const header = req.headers.authorization;
  if (header === undefined) {
    const token = new URL(req.url ?? '/', 'http://upload').searchParams.get('auth_token');
    return token === null ? null : { kind: 'token', token };
  }
  if (header.startsWith('Token ')) return { kind: 'token', token: header.slice('Token '.length) };
  if (header.startsWith('Basic ')) {
    const decoded = decodeBasic(header.slice('Basic '.length));
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new UploadRefused(500, SERVER_ERROR);
    return { kind: 'password', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  // Case-insensitive and trimmed, as stor's own clients have always been served.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return bearer ? { kind: 'api-key', key: bearer[1]! } : null;
}

/** Failed password checks share one budget per address (key checks have their own, KeyCheckLimits). */
const BASIC = 'basic';

/** Python's `int(text)` of a decimal string (spaces around, a sign, `_` between digits), or null where it raises ValueError. */
function pythonInt(text: string): number | null {
  const m = /^[ \t\n\r\f\v]*([+-]?\d+(?:_\d+)*)[ \t\n\r\f\v]*$/.exec(text);
  return m ? Number(m[1]!.replaceAll('_', '')) : null;
}

/**
 * Logs the request's credentials in on a fresh session, with the endpoint's refusals (MW/restful.py:74-126,
 * MW/apps/file_app.py:139-166): 401 without credentials, `Bad username or password`, `HTTP Basic
 * Auth is unavailable when OTP is enabled`, `Invalid API key`; 403 `Invalid token` for a token
 * that is unknown, expired, bound to another origin, carries attrs, or whose parent may not call
 * `method`.
 */
export async function authenticateUpload(
  appliance: Appliance,
  limiter: RateLimiter,
  req: IncomingMessage,
  origin: Origin,
  method: string,
  log: (line: string) => void = () => undefined,
): Promise<Session> {
  const credentials = parseUploadCredentials(req);
  if (credentials === null) throw new UploadRefused(401, '401: Unauthorized');
  // The upload path has no insecure-transport revocation on the appliance (MW/restful.py:112-125 only checks the key).
  const session = appliance.createSession({ ...origin, transport: 'upload', secure: true });
  // One line in the server's log per credential checked (login-log.ts); never the credential.
  const event = {
    via: `/_upload/ ${credentials.kind === 'api-key' ? 'bearer key' : credentials.kind}`,
    ...(credentials.kind === 'password' ? { username: credentials.username } : {}),
    ...(credentials.kind === 'api-key' ? { keyId: keyIdOf(credentials.key) } : {}),
    address: origin.address,
  };
  try {
    switch (credentials.kind) {
      case 'token':
        if (
          !loginWithTokenFor(appliance, session, credentials.token, (parent) =>
            mayCallForUpload(appliance, parent, method),
          )
        ) {
          throw new UploadRefused(403, 'Invalid token');
        }
        break;
      case 'password': {
        if (readGlobalTwoFactor(appliance).enabled)
          throw new UploadRefused(401, 'HTTP Basic Auth is unavailable when OTP is enabled');
        if (limiter.blocked(BASIC, origin.address)) throw new UploadRefused(429, '429: Too Many Requests');
        if ((await loginWithPassword(appliance, session, credentials.username, credentials.password)) !== 'SUCCESS') {
          limiter.hit(BASIC, origin.address);
          throw new UploadRefused(401, 'Bad username or password');
        }
        break;
      }
      case 'api-key': {
        // `api_key.authenticate` (MW/plugins/api_key.py:364-371): an id that is a number but no key's
        // makes get_instance raise outside any handler of the endpoint: aiohttp's 500.
        // The probe still spends the address's unknown-id budget (stor's KeyCheckLimits): past it, the
        // 429 every other key check gets, so ids cannot be enumerated here faster than by logging in.
        const id = pythonInt(credentials.key.split('-', 1)[0]!);
        if (id !== null && !appliance.store.read(() => findApiKey(appliance.store.db, id))) {
          if (appliance.keyChecks.refused(origin.address, null)) throw new UploadRefused(429, '429: Too Many Requests');
          appliance.keyChecks.failed(origin.address, null);
          throw unhandledInHandler();
        }
        const outcome = await loginWithApiKey(appliance, session, credentials.key);
        if (outcome === 'LIMITED') throw new UploadRefused(429, '429: Too Many Requests');
        if (outcome !== 'SUCCESS') throw new UploadRefused(401, 'Invalid API key');
        break;
      }
    }
  } catch (err) {
    const refused = err instanceof RpcError ? new UploadRefused(500, err.reason) : err;
    const reason = refused instanceof UploadRefused ? `${refused.status} ${refused.body}` : 'internal error';
    log(loginLine({ ...event, outcome: 'refused', reason }));
    throw refused;
  }
  log(
    loginLine({
      ...event,
      username: session.credentials?.username,
      keyId: session.credentials?.apiKey?.id,
      outcome: 'ok',
    }),
  );
  return session;
}
