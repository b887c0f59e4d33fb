import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { isLoopbackHost } from '../net/loopback.js';

/** Where a remote appliance answers: the WebSocket URL, the HTTP base, and whether it is TLS. */
export interface Endpoint {
  /** As the operator should see it, e.g. `wss://nas.example.com`. */
  display: string;
  /** `ws(s)://host[:port]/api/current` */
  rpcWs: URL;
  /** `http(s)://host[:port]/api/current` */
  rpcHttp: URL;
  /** `http(s)://host[:port]/` — where `/_upload/` lives. */
  base: URL;
  secure: boolean;
}

const SCHEMES: Record<string, { secure: boolean }> = {
  'ws:': { secure: false },
  'http:': { secure: false },
  'wss:': { secure: true },
  'https:': { secure: true },
};

/**
 * Accepts `wss://host`, `https://host:8443`, `ws://127.0.0.1:6000/api/current` or a bare host
 * (TLS assumed) and derives the appliance's URLs from it.
 */
export function parseEndpoint(input: string): Endpoint {
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `wss://${input}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StorError(E.BAD_URL, `not a URL: ${JSON.stringify(input)}`, { hint: 'use e.g. wss://nas.example.com' });
  }
  const scheme = SCHEMES[url.protocol];
  if (!scheme) {
    throw new StorError(E.BAD_URL, `unsupported scheme ${url.protocol} in ${JSON.stringify(input)}`, {
      hint: 'use wss:// (or https://); ws:// and http:// only for an appliance on this machine',
    });
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/(current|v[\d.]+)$/, '');
  const host = url.host;
  const secure = scheme.secure;
  const base = new URL(`${secure ? 'https' : 'http'}://${host}${path}/`);
  return {
    display: `${secure ? 'wss' : 'ws'}://${host}${path}`,
    rpcWs: new URL(`${secure ? 'wss' : 'ws'}://${host}${path}/api/current`),
    rpcHttp: new URL(`${secure ? 'https' : 'http'}://${host}${path}/api/current`),
    base,
    secure,
  };
}

/** What a login sends, named when it is refused. */
export type SecretKind = 'an API key' | 'a password';

/**
 * A key or password sent in clear to another host is exposed on the network, and a real appliance
 * revokes a key the moment it sees it so used. Refuse before any connection is made.
 */
export function assertSecretMayTravel(endpoint: Endpoint, secret: SecretKind): void {
  if (secretMayTravel(endpoint)) return;
  const why =
    secret === 'an API key' ? 'the appliance would revoke a key used over it' : 'anyone on the path could read it';
  throw new StorError(
    E.INSECURE_TRANSPORT,
    `refusing to send ${secret} in clear to ${endpoint.base.hostname}: ${endpoint.display} is not encrypted, and ${why}`,
    { hint: `use ${secureDisplay(endpoint)} (add --ca <file> or --insecure for a self-signed certificate)` },
  );
}

/** Whether a key or password may go to `endpoint`: TLS, or clear text to this machine. */
export const secretMayTravel = (endpoint: Endpoint): boolean =>
  endpoint.secure || isLoopbackHost(endpoint.base.hostname);

/**
 * The URL to suggest for `endpoint`: as given when a key may go to it, else its `wss://` form, so
 * that stor never suggests a URL it would then refuse (INSECURE_TRANSPORT).
 */
export const secureDisplay = (endpoint: Endpoint): string =>
  secretMayTravel(endpoint) ? endpoint.display : endpoint.display.replace(/^ws:/, 'wss:');
