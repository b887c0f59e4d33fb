import { lookup } from 'node:dns/promises';
import { ipAddress } from '../../net/ip-network.js';

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

/** `dnsclient.forward_lookup`'s first address for a name, or null when it does not resolve. */
async function firstAddress(name: string): Promise<string | null> {
  if (isInetAtonNumber(name)) return null;
  try {
    // The emulator asks the resolver of the machine it runs on, where 25.10.1 asks its name
    // servers; an address of each family may come back, and the caller takes the first.
    const found = await lookup(name, { all: true });
    return found[0]?.address ?? null;
  } catch {
    return null;
  }
}

/**
 * `resolve_hostnames` (MW/plugins/nfs.py:758-793): each distinct name to an address, or null. An
 * IP address stands for itself, as written; `*.example.com` is looked up as `example.com`; a name
 * whose first label still has a wildcard does not resolve.
 */
export async function resolveHostnames(hostnames: readonly string[]): Promise<Map<string, string | null>> {
  const names = [...new Set(hostnames)];
  const resolve = async (hostname: string): Promise<string | null> => {
    if (ipAddress(hostname) !== null) return hostname;
    const wildcardDomain = leftmostHasWildcards(hostname) ? domainOf(hostname) : null;
    const name = wildcardDomain ?? hostname;
    return leftmostHasWildcards(name) ? null : firstAddress(name);
  };
  const resolved = new Map<string, string | null>();
  for (let i = 0; i < names.length; i += AT_ONCE) {
    const batch = names.slice(i, i + AT_ONCE);
    const addresses = await Promise.all(batch.map(resolve));
    batch.forEach((name, j) => resolved.set(name, addresses[j]!));
  }
  return resolved;
}
