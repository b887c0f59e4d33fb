/*
 * Python's `ipaddress` (CPython 3.13, the interpreter of TrueNAS 25.10 and 26), the part the NFS
 * share checks use: `ip_address`, `ip_network(…, strict)`, `ip_interface(…).ip`, a network's
 * `str`, `==` and `overlaps` (MW/plugins/nfs_/validators.py, MW/plugins/nfs.py:704-900). What it
 * accepts and refuses is CPython's: four decimal octets without leading zeros, at most 45
 * characters of IPv6 with one `::` and an optional dotted tail and `%scope`, a prefix of ASCII
 * digits or (IPv4 only) a netmask or hostmask in dotted form. A refusal is `null`, where Python
 * raises ValueError: the callers only ask whether it parses.
 */

/** One address: its version, its value, and an IPv6 scope id (`fe80::1%eth0`). */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
  scope: string | null;
}

/** One network: its network address (host bits cleared) and prefix length. */
export interface IpNetwork {
  version: 4 | 6;
  network: bigint;
  prefix: number;
  scope: string | null;
}

const BITS = { 4: 32, 6: 128 } as const;
const allOnes = (version: 4 | 6) => (1n << BigInt(BITS[version])) - 1n;

/** `IPv4Address._ip_int_from_string` (CPython Lib/ipaddress.py). */
function parseV4(text: string): bigint | null {
  if (text === '') return null;
  const octets = text.split('.');
  if (octets.length !== 4) return null;
  let value = 0n;
  for (const octet of octets) {
    // `_parse_octet`: ASCII decimal digits, at most three, no leading zero, at most 255.
    if (!/^[0-9]{1,3}$/.test(octet)) return null;
    if (octet.length > 1 && octet.startsWith('0')) return null;
    const n = Number(octet);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** `IPv6Address._ip_int_from_string`, without the scope (split off before). */
function parseV6(text: string): bigint | null {
  if (text === '' || text.length > 45) return null;
  const parts = text.split(':');
  if (parts.length < 3) return null;
  if (parts.at(-1)!.includes('.')) {
    const v4 = parseV4(parts.pop()!);
    if (v4 === null) return null;
    parts.push(((v4 >> 16n) & 0xffffn).toString(16), (v4 & 0xffffn).toString(16));
  }
  if (parts.length > 9) return null;
  let skip: number | null = null;
  for (let i = 1; i < parts.length - 1; i++) {
    if (parts[i] !== '') continue;
    if (skip !== null) return null;
    skip = i;
  }
  let hi: number;
  let lo: number;
  let skipped: number;
  if (skip !== null) {
    hi = skip;
    lo = parts.length - skip - 1;
    if (parts[0] === '' && --hi !== 0) return null;
    if (parts.at(-1) === '' && --lo !== 0) return null;
    skipped = 8 - (hi + lo);
    if (skipped < 1) return null;
  } else {
    if (parts.length !== 8 || parts[0] === '' || parts.at(-1) === '') return null;
    hi = parts.length;
    lo = 0;
    skipped = 0;
  }
  const hextet = (s: string) => (/^[0-9a-fA-F]{1,4}$/.test(s) ? BigInt(`0x${s}`) : null);
  let value = 0n;
  for (let i = 0; i < hi; i++) {
    const h = hextet(parts[i]!);
    if (h === null) return null;
    value = (value << 16n) | h;
  }
  value <<= 16n * BigInt(skipped);
  for (let i = parts.length - lo; i < parts.length; i++) {
    const h = hextet(parts[i]!);
    if (h === null) return null;
    value = (value << 16n) | h;
  }
  return value;
}

/** `IPv6Address._split_scope_id`: `addr%scope`, the scope non-empty and without another `%`. */
function parseV6Scoped(text: string): { value: bigint; scope: string | null } | null {
  const at = text.indexOf('%');
  const scope = at < 0 ? null : text.slice(at + 1);
  if (scope !== null && (scope === '' || scope.includes('%'))) return null;
  const value = parseV6(at < 0 ? text : text.slice(0, at));
  return value === null ? null : { value, scope };
}

/** `ipaddress.ip_address(text)`: IPv4 first, then IPv6. */
export function ipAddress(text: string): IpAddress | null {
  const v4 = parseV4(text);
  if (v4 !== null) return { version: 4, value: v4, scope: null };
  const v6 = parseV6Scoped(text);
  return v6 && { version: 6, ...v6 };
}

/** `_prefix_from_ip_int`: the prefix of a netmask of leading ones, or null. */
function prefixOfMask(version: 4 | 6, mask: bigint): number | null {
  const bits = BITS[version];
  let trailingZeros = 0;
  while (trailingZeros < bits && ((mask >> BigInt(trailingZeros)) & 1n) === 0n) trailingZeros++;
  const prefix = bits - trailingZeros;
  return mask >> BigInt(trailingZeros) === (1n << BigInt(prefix)) - 1n ? prefix : null;
}

/** `_make_netmask` of a string: a prefix length, or (IPv4) a netmask or hostmask in dotted form. */
function prefixOf(version: 4 | 6, text: string): number | null {
  // `_prefix_from_prefix_string`: ASCII digits only (no sign, no spaces), 0 … max.
  if (/^[0-9]+$/.test(text)) {
    const n = Number(text);
    if (n <= BITS[version]) return n;
  }
  if (version === 6) return null;
  // `_prefix_from_ip_string`: a netmask, else the inverse of a hostmask.
  const mask = parseV4(text);
  if (mask === null) return null;
  return prefixOfMask(4, mask) ?? prefixOfMask(4, mask ^ allOnes(4));
}

/** `IPv4Network(text, strict)` or `IPv6Network(text, strict)`. */
function parseNetwork(version: 4 | 6, text: string, strict: boolean): IpNetwork | null {
  const parts = text.split('/');
  if (parts.length > 2) return null;
  let address: { value: bigint; scope: string | null } | null;
  if (version === 4) {
    const v = parseV4(parts[0]!);
    address = v === null ? null : { value: v, scope: null };
  } else {
    address = parseV6Scoped(parts[0]!);
  }
  if (address === null) return null;
  const prefix = parts.length === 2 ? prefixOf(version, parts[1]!) : BITS[version];
  if (prefix === null) return null;
  const mask = allOnes(version) ^ ((1n << BigInt(BITS[version] - prefix)) - 1n);
  const network = address.value & mask;
  if (network !== address.value && strict) return null;
  // A network whose host bits were cleared is a new address, without the scope (Lib/ipaddress.py IPv6Network.__init__).
  return { version, network, prefix, scope: network === address.value ? address.scope : null };
}

/** `ipaddress.ip_network(text, strict)`: IPv4 first, then IPv6; null where Python raises ValueError. */
export function ipNetwork(text: string, strict = true): IpNetwork | null {
  return parseNetwork(4, text, strict) ?? parseNetwork(6, text, strict);
}

/** `ipaddress.ip_interface(text).ip`: the address part of `addr/prefix`, as its `str`. */
export function interfaceAddress(text: string): string | null {
  const slash = text.indexOf('/');
  const net = ipNetwork(text, false);
  if (net === null) return null;
  const address = ipAddress(slash < 0 ? text : text.slice(0, slash));
  return address && addressString(address);
}

function v4String(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** `_compress_hextets`: the first longest run of two or more zero hextets becomes `::`. */
function v6String(value: bigint): string {
  const hextets = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  let start = -1;
  let len = 0;
  hextets.forEach((h, i) => {
    if (h !== '0') {
      start = -1;
      len = 0;
      return;
    }
    if (start === -1) start = i;
    len++;
    if (len > bestLen) {
      bestLen = len;
      bestStart = start;
    }
  });
  if (bestLen <= 1) return hextets.join(':');
  const head = hextets.slice(0, bestStart).join(':');
  const tail = hextets.slice(bestStart + bestLen).join(':');
  return `${head}::${tail}`;
}

/** `str(ip_address)`: IPv4 dotted; IPv6 compressed, `::ffff:a.b.c.d` for a mapped IPv4 (3.13), then `%scope`. */
export function addressString(a: IpAddress): string {
  if (a.version === 4) return v4String(a.value);
  const mapped = a.value >> 32n === 0xffffn;
  const text = mapped ? `::ffff:${v4String(a.value & 0xffffffffn)}` : v6String(a.value);
  return a.scope ? `${text}%${a.scope}` : text;
}

/** `str(network)`: `address/prefix`. */
export function networkString(n: IpNetwork): string {
  return `${addressString({ version: n.version, value: n.network, scope: n.scope })}/${n.prefix}`;
}

const lastAddress = (n: IpNetwork) => n.network | ((1n << BigInt(BITS[n.version] - n.prefix)) - 1n);

function contains(n: IpNetwork, address: bigint, version: 4 | 6): boolean {
  return n.version === version && address >= n.network && address <= lastAddress(n);
}

/** `a.overlaps(b)`: never across versions. */
export function overlaps(a: IpNetwork, b: IpNetwork): boolean {
  return (
    contains(b, a.network, a.version) ||
    contains(b, lastAddress(a), a.version) ||
    contains(a, b.network, b.version) ||
    contains(a, lastAddress(b), b.version)
  );
}

/** A key two networks share exactly when `a == b`: same version, network address and netmask. */
export function networkKey(n: IpNetwork): string {
  return `${n.version}/${n.network}/${n.prefix}`;
}

/**
 * A network as 25.10.1 stores it: `str(ip_network(v, strict=False))`, host bits cleared (`10.0.0.5`
 * is `10.0.0.5/32`, `10.1.2.3/8` is `10.0.0.0/8`; MW/plugins/nfs_/validators.py:23-55). What is no
 * network is kept as written, for the appliance to refuse in its words.
 */
export function storedNetwork(text: string): string {
  const net = ipNetwork(text, false);
  return net ? networkString(net) : text;
}
