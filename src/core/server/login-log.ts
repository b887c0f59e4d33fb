import type { Session } from '../appliance/session/session.js';
import { parseApiKey } from '../appliance/session/login.js';
import { RPC_CODE, type RpcErrorObject } from '../errors.js';
import type { RpcRequest } from '../rpc/codec.js';

/**
 * One line in `stor serve -v`'s log per login, successful or refused, as 25.10.1 writes an
 * AUTHENTICATION audit entry for each (MW/plugins/auth.py:131-134, 159-162 on success, :945-956 for
 * a refused key; MW/main.py:893 for a call refused by the rate limit): how the client logged in,
 * the user and key id when known, the client address, and the outcome. Never a key, password,
 * token or one-time code, nor any part of one: the key id is the part of `<id>-<secret>` that the
 * appliance itself shows (`api_key.query`).
 */
export interface LoginEvent {
  /** `auth.login_ex API_KEY_PLAIN`, `POST /api/current bearer key`, `/_upload/ token`, … */
  via: string;
  username?: string | undefined;
  keyId?: number | undefined;
  address: string;
  /** `ok`, `pending` (a one-time code is asked for), or `refused`. */
  outcome: 'ok' | 'pending' | 'refused';
  /** Why it was refused (`AUTH_ERR`, `[EBUSY] Rate Limit Exceeded`, …) or what is pending. */
  reason?: string | undefined;
}

const MAX_NAME = 64;

/** A user name as the client sent it, made safe for one log line: no control characters, bounded. */
function printable(name: string): string {
  const cleaned = name.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return cleaned.length > MAX_NAME ? `${cleaned.slice(0, MAX_NAME)}…` : cleaned;
}

export function loginLine(e: LoginEvent): string {
  const who = [
    e.username !== undefined ? `user ${printable(e.username)}` : null,
    e.keyId !== undefined ? `key id ${e.keyId}` : null,
  ].filter(Boolean);
  const head = `login ${e.outcome}: ${e.via}${who.length > 0 ? `, ${who.join(', ')}` : ''}, from ${e.address}`;
  return e.reason !== undefined ? `${head}: ${e.reason}` : head;
}

/** The key id of `<id>-<secret>`, when the value has that form (the secret never leaves here). */
export function keyIdOf(key: unknown): number | undefined {
  return typeof key === 'string' ? parseApiKey(key)?.id : undefined;
}

/** The login methods, all `auth.login*` (the ones the rate limit counts on any session, call-gate.ts). */
const isLoginMethod = (method: string) => method.startsWith('auth.login');

const MECHANISMS = new Set(['API_KEY_PLAIN', 'PASSWORD_PLAIN', 'TOKEN_PLAIN', 'OTP_TOKEN', 'SCRAM']);

/** What the call's parameters say about who logs in: read only for names and ids, never for secrets. */
function claimed(request: RpcRequest): { via: string; username?: string; keyId?: number } {
  const [first] = request.params;
  switch (request.method) {
    case 'auth.login_with_api_key':
      return { via: request.method, ...opt('keyId', keyIdOf(first)) };
    case 'auth.login':
      return { via: `${request.method} password`, ...opt('username', typeof first === 'string' ? first : undefined) };
    case 'auth.login_ex':
    case 'auth.login_ex_continue': {
      const data = first !== null && typeof first === 'object' ? (first as Record<string, unknown>) : {};
      const mechanism = typeof data.mechanism === 'string' && MECHANISMS.has(data.mechanism) ? data.mechanism : null;
      const username = mechanism === 'API_KEY_PLAIN' || mechanism === 'PASSWORD_PLAIN' ? data.username : undefined;
      if (mechanism === 'SCRAM') return scramClaim(request.method, data);
      return {
        via: mechanism ? `${request.method} ${mechanism}` : request.method,
        ...opt('username', typeof username === 'string' ? username : undefined),
        ...opt('keyId', mechanism === 'API_KEY_PLAIN' ? keyIdOf(data.api_key) : undefined),
      };
    }
    default:
      return { via: request.method };
  }
}

/**
 * A SCRAM step: its message type, and from a client-first-message the `user:keyid` it names and
 * whether it asks for channel binding. Nonces and proofs are not logged.
 */
function scramClaim(method: string, data: Record<string, unknown>): { via: string; username?: string; keyId?: number } {
  const type =
    data.scram_type === 'CLIENT_FIRST_MESSAGE'
      ? 'client-first'
      : data.scram_type === 'CLIENT_FINAL_MESSAGE'
        ? 'client-final'
        : 'unknown';
  const m =
    typeof data.rfc_str === 'string' && type === 'client-first'
      ? /^(n|y|p=[^,]*),[^,]*,n=([^,]*):(\d{1,15}),/.exec(data.rfc_str)
      : null;
  return {
    via: `${method} SCRAM ${type}${m?.[1]?.startsWith('p=') ? ' channel-bound' : ''}`,
    ...opt('username', m?.[2]),
    ...opt('keyId', m ? Number(m[3]) : undefined),
  };
}

const opt = <K extends string, V>(k: K, v: V | undefined): Partial<Record<K, V>> =>
  v === undefined ? {} : ({ [k]: v } as Record<K, V>);

/** An error's words for the log: a call error's reason (`[EBUSY] Rate Limit Exceeded`, texts of ours), else only the JSON-RPC message. */
export function errorReason(error: RpcErrorObject): string {
  if (error.code === RPC_CODE.CALL_ERROR && error.data) return error.data.reason;
  // A validation error's details may quote what was sent, which may be the secret itself.
  return error.message;
}

/**
 * The log line for one answered JSON-RPC call, or null when it was no login. `loginIdBefore` is the
 * session's login id from before the call: a new one means the call logged the session in.
 */
export function loginLineForCall(
  request: RpcRequest,
  session: Session,
  loginIdBefore: string | null,
  outcome: { result: unknown } | { error: RpcErrorObject },
): string | null {
  if (!isLoginMethod(request.method)) return null;
  const claim = claimed(request);
  const address = session.origin.address;
  if ('error' in outcome)
    return loginLine({ ...claim, address, outcome: 'refused', reason: errorReason(outcome.error) });
  const result = outcome.result as { response_type?: unknown } | boolean | null;
  if (session.authenticated && session.loginId !== loginIdBefore) {
    const creds = session.credentials!;
    const via = creds.scram ? `${request.method} SCRAM${creds.scram.channelBound ? ' channel-bound' : ''}` : claim.via;
    return loginLine({ via, username: creds.username, keyId: creds.apiKey?.id, address, outcome: 'ok' });
  }
  if (
    result !== null &&
    typeof result === 'object' &&
    (result.response_type === 'OTP_REQUIRED' || result.response_type === 'SCRAM_RESPONSE')
  ) {
    return loginLine({
      ...claim,
      address,
      outcome: 'pending',
      reason: result.response_type === 'OTP_REQUIRED' ? 'OTP_REQUIRED' : 'SERVER_FIRST_RESPONSE',
    });
  }
  const reason =
    result !== null && typeof result === 'object' && typeof result.response_type === 'string'
      ? result.response_type
      : 'AUTH_ERR';
  return loginLine({ ...claim, address, outcome: 'refused', reason });
}
