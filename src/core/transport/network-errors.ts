import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { isLoopbackHost } from '../net/loopback.js';

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * OpenSSL's words when the first bytes back from the server are not a TLS record: it answered in
 * plain text (an HTTP error page, a `stor serve` without TLS), so the port does not speak TLS.
 */
const NOT_TLS = /wrong version number|packet length too long|http request|unknown protocol/i;

/**
 * `wss://` to a port that speaks plain WebSocket/HTTP. Not a certificate problem: no certificate
 * was ever sent. Plain `ws://` carries a key only to this machine, so the hint says what fits.
 */
function tlsNotSpoken(where: string, err: unknown): StorError {
  const plain = where.replace(/^wss:/, 'ws:');
  const host = new URL(plain).hostname;
  return new StorError(E.TLS_NOT_SPOKEN, `${where} does not speak TLS: the server answered in plain text`, {
    hint: isLoopbackHost(host)
      ? `use ${plain} for a server without TLS`
      : `check the port; if the appliance really has no TLS, stor sends a key over plain ${plain} only to this machine (put TLS in front of it)`,
    cause: err,
  });
}

/**
 * Turns a socket-level failure into the CLI's "cannot reach the target" (exit 3), with the why.
 * `where` is the endpoint as shown (`ws://…` or `wss://…`). `startedAt` is `performance.now()`
 * when the operation began: an OS-level timeout or reset is reported after the time it really
 * took, which need not be --timeout.
 */
export function networkError(err: unknown, where: string, startedAt: number): StorError {
  if (err instanceof StorError) return err;
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = e?.code ?? '';
  const secure = where.startsWith('wss:');
  if (secure && (code.startsWith('ERR_SSL_') || code === 'EPROTO') && NOT_TLS.test(e?.message ?? ''))
    return tlsNotSpoken(where, err);
  if (TLS_CODES.has(code) || /certificate/i.test(e?.message ?? '')) {
    return new StorError(
      E.TLS_FAILED,
      `TLS with ${where} failed: the certificate is not trusted (${code || e.message})`,
      {
        hint: 'pass the CA that signed it with --ca <file>, or --insecure to skip verification for a self-signed appliance',
        cause: err,
      },
    );
  }
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO' || /SSL|TLS/.test(e?.message ?? '')) {
    return new StorError(E.TLS_FAILED, `TLS with ${where} failed: ${(e?.message ?? code).trim()}`, { cause: err });
  }
  const after = `after ${((performance.now() - startedAt) / 1000).toFixed(1)} s`;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ECONNRESET: `connection reset ${after}`,
    EPIPE: `connection closed by the other side ${after}`,
    UND_ERR_SOCKET: `connection closed by the other side ${after}`,
    ETIMEDOUT: `timed out ${after}`,
    UND_ERR_CONNECT_TIMEOUT: `timed out ${after}`,
  };
  const reason = reasons[code] ?? (e instanceof Error ? e.message : String(err));
  // A TLS server drops a connection that opens in plain text without a word.
  const dropped = !secure && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
  return new StorError(E.UNREACHABLE, `cannot reach ${where}: ${reason}`, {
    ...(dropped ? { hint: `if the appliance speaks TLS on this port, use ${where.replace(/^ws:/, 'wss:')}` } : {}),
    cause: err,
  });
}

export function notAnAppliance(where: string, status: number): StorError {
  return new StorError(
    E.NOT_AN_APPLIANCE,
    `${where} is not a storage appliance: it answered HTTP ${status} where the JSON-RPC API (/api/current) should be`,
    { hint: 'check the URL: it should name the appliance itself, e.g. wss://nas.example.com' },
  );
}

/**
 * An appliance whose `/api/versions` answers but which has no `/api/current`: a build older than
 * the JSON-RPC API stor speaks (`/api/current` came with 25.04, MW/main.py:1300-1304 lists what a
 * build serves). Its list is named so the operator sees which release it is.
 */
export function apiNotServed(where: string, versions: readonly string[]): StorError {
  return new StorError(
    E.NOT_AN_APPLIANCE,
    `${where} has no /api/current (HTTP 404); its /api/versions lists ${versions.join(', ')}`,
    {
      hint: 'stor speaks the JSON-RPC API at /api/current of TrueNAS 25.04 and later (tested with 25.10.1–25.10.7 and 26.0): upgrade the appliance',
    },
  );
}

export function timedOut(where: string, what: string, seconds: number): StorError {
  return new StorError(E.TIMEOUT, `${where} did not answer ${what} within ${seconds} s`, {
    hint: 'raise --timeout, or check that the appliance is up',
  });
}

/** An HTTP 429: the appliance (or a proxy before it) limits this address; its own words kept. */
export function rateLimited(where: string, what: string, body: string): StorError {
  return new StorError(
    E.RATE_LIMITED,
    `${where} is rate-limiting ${what} from this address: HTTP 429${body ? ` ${body.slice(0, 200)}` : ''}`,
    {
      hint: 'wait a minute and try again, or space out invocations',
    },
  );
}
