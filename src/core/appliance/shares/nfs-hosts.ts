import { ipAddress } from '../../net/ip-network.js';
import { NameServerResolver, type HostResolver } from './host-resolver.js';

// The host names of NFS shares: wildcards and their resolution (MW/plugins/nfs_/utils.py, MW/plugins/nfs.py:758-793).

/** `RE_DOMAIN_WILDCARD` (MW/plugins/nfs_/utils.py:3). */
const WILDCARD = /\*|\?|\[|\]/;

/** `get_domain` (MW/plugins/nfs_/utils.py:6-15): what follows the first dot, or null. */
export function domainOf(hostname: string): string | null {
  const dot = hostname.indexOf('.');
  return dot < 0 ? null : hostname.slice(dot + 1);
}

/** `leftmost_has_wildcards` (MW/plugins/nfs_/utils.py:18-22). */
export function leftmostHasWildcards(hostname: string): boolean {
  return WILDCARD.test(hostname.split('.')[0]!);
}

/** How many names are looked up at once (`asyncio_map(resolve, hostnames, 8)`, MW/plugins/nfs.py:791). */
const AT_ONCE = 8;

/**
 * A name the C library's inet_aton reads as an IPv4 address (`127.1`, `010.0.0.1`, `0x7f.1`,
 * `2130706433`): one to four parts, each decimal, octal or hex. getaddrinfo answers it without
 * asking anyone; 25.10.1's DNS query for it finds no such name (no top-level domain is a number).
 */
const INET_ATON_PART = /^(0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$/;
const isInetAtonNumber = (name: string) => {
  const parts = name.split('.');
  return parts.length <= 4 && parts.every((p) => INET_ATON_PART.test(p));
};

/** How names are looked up, and the bounds on the lookups of one request. */
export interface HostLookup {
  resolver: HostResolver;
  /** The most one name may take: dnsclient's `lifetime`, 12 s (MW/plugins/dns_client.py:17). */
  lookupMs: number;
  /**
   * The most all the names of one request may take. 25.10.1 has no such bound (8 names at a time,
   * each up to its lifetime); the emulator answers within one lifetime, and a name not answered by
   * then is one that does not resolve, as a name whose lookup timed out is on 25.10.1 (:781-783).
   */
  requestMs: number;
}

/** dnsclient's default `lifetime` (MW/plugins/dns_client.py:17). */
const LIFETIME_MS = 12_000;

/** The emulator's lookups: the machine's hosts file and name servers, bounded as dnsclient is. */
export const defaultHostLookup = (): HostLookup => ({
  resolver: new NameServerResolver(),
  lookupMs: LIFETIME_MS,
  requestMs: LIFETIME_MS,
});

/**
 * `dnsclient.forward_lookup`'s first address for a name (`dns_addresses[0]`, MW/plugins/nfs.py:776-780),
 * or null when it has none, its lookup fails, or it is not answered within `lookupMs` or before the
 * request's bound (`request` aborted): an exception there is logged and the name is None (:781-783).
 */
async function firstAddress(name: string, lookup: HostLookup, request: AbortSignal): Promise<string | null> {
  if (isInetAtonNumber(name) || request.aborted) return null;
  const controller = new AbortController();
  const stop = () => controller.abort();
  const timer = setTimeout(stop, lookup.lookupMs);
  request.addEventListener('abort', stop, { once: true });
  // A resolver answers what it has once told to stop; one that does not is not waited for past the
  // next turn of the event loop.
  const given = new Promise<null>((resolve) =>
    controller.signal.addEventListener('abort', () => setImmediate(() => resolve(null)), { once: true }),
  );
  try {
    return await Promise.race([
      lookup.resolver.addresses(name, controller.signal).then(
        (found) => found[0] ?? null,
        () => null,
      ),
      given,
    ]);
  } finally {
    clearTimeout(timer);
    request.removeEventListener('abort', stop);
    controller.abort();
  }
}

/**
 * `resolve_hostnames` (MW/plugins/nfs.py:758-793): each distinct name to an address, or null. An
 * IP address stands for itself, as written; `*.example.com` is looked up as `example.com`; a name
 * whose first label still has a wildcard does not resolve. Every lookup, and all of them together,
 * within `lookup`'s bounds.
 */
export async function resolveHostnames(
  hostnames: readonly string[],
  lookup: HostLookup = defaultHostLookup(),
): Promise<Map<string, string | null>> {
  const names = [...new Set(hostnames)];
  const request = new AbortController();
  const resolve = async (hostname: string): Promise<string | null> => {
    if (ipAddress(hostname) !== null) return hostname;
    const wildcardDomain = leftmostHasWildcards(hostname) ? domainOf(hostname) : null;
    const name = wildcardDomain ?? hostname;
    return leftmostHasWildcards(name) ? null : firstAddress(name, lookup, request.signal);
  };
  const resolved = new Map<string, string | null>();
  const deadline = setTimeout(() => request.abort(), lookup.requestMs);
  try {
    for (let i = 0; i < names.length; i += AT_ONCE) {
      const batch = names.slice(i, i + AT_ONCE);
      const addresses = await Promise.all(batch.map(resolve));
      batch.forEach((name, j) => resolved.set(name, addresses[j]!));
    }
  } finally {
    clearTimeout(deadline);
  }
  return resolved;
}
