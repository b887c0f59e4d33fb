import type { NfsShareCreate } from '../../contract/sharing-nfs.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  interfaceAddress,
  ipAddress,
  ipNetwork,
  networkKey,
  networkString,
  overlaps,
  type IpNetwork,
} from '../../net/ip-network.js';
import { pyRepr } from '../../python-repr.js';
import { HOST_SPACE_OR_QUOTE, shareRefusalText } from '../../refusals/sharing.js';
import { readNfsConfig, type NfsShareRecord } from '../../store/shares-nfs.js';
import type { Appliance } from '../appliance.js';
import { statEntry, statRealpath } from '../files/stat.js';
import { domainOf, leftmostHasWildcards } from './nfs-hosts.js';
import { pathResidesWithinVolume, shareRealpath } from './share-path.js';

/*
 * SharingNFSService.validate (MW/plugins/nfs.py:535-658) and the checks it calls, in its order and
 * with its words. It stops where the source calls `verrors.check()` (:572, :593, :599, :604): what
 * was found up to there is thrown. Not emulated: the alerts for lists of 100 entries or more
 * (:681-702) and the statfs check behind `expose_snapshots`, which only an enterprise system reaches.
 */

/** A share as validate sees it: create's fields, and on update the share's id. */
export type NfsShareData = NfsShareCreate & { id?: number };

/** What validate needs besides the share and the other shares: the schema name and the release's words. */
export interface NfsCheckContext {
  schema: 'sharingnfs_create' | 'sharingnfs_update';
  /**
   * 26.0's sanitize names the offending entry in its all-networks/all-hosts words (stable/26
   * MW/plugins/nfs_/validators.py:47-49, 86-88); 25.10.1's names the list's last.
   */
  namesFoundEntry: boolean;
}

class Errors {
  readonly list: ValidationTriple[] = [];
  constructor(private readonly schema: string) {}
  add(field: string, message: string): void {
    this.list.push([`${this.schema}.${field}`, message, ERRNO.EINVAL]);
  }
  /** `verrors.check()`: raise what was found. */
  check(): void {
    if (this.list.length > 0) throw rpcErrors.validation(this.list);
  }
}

/** Python's `str()` of a set or a list of tuples of strings, in the order given. */
const pySet = (items: readonly string[]) => `{${items.map((s) => pyRepr(s)).join(', ')}}`;
const pyPairs = (pairs: readonly (readonly [string, string])[]) =>
  `[${pairs.map(([a, b]) => `(${pyRepr(a)}, ${pyRepr(b)})`).join(', ')}]`;

/** `confirm_unique` (MW/plugins/nfs_/validators.py:7-20): each repeat listed, as often as it repeats. */
function confirmUnique(errors: Errors, field: 'networks' | 'hosts', values: readonly string[]): void {
  const seen = new Set<string>();
  const repeats: string[] = [];
  for (const v of values) {
    if (seen.has(v)) repeats.push(v);
    seen.add(v);
  }
  if (repeats.length > 0) errors.add(field, `Entries must be unique, the following are not: ${repeats.join(', ')}`);
}

/**
 * `sanitize_networks(strict_test=False, convert=True)` (MW/plugins/nfs_/validators.py:23-55): each
 * entry must parse as `ip_network(v, strict=False)`; one whose network address is 0 stands for all
 * networks and is refused; otherwise the entries come back in CIDR form (`10.0.0.5` → `10.0.0.5/32`,
 * `10.0.0.5/24` → `10.0.0.0/24`).
 */
function sanitizeNetworks(errors: Errors, networks: readonly string[], namesFound: boolean): string[] {
  const invalid: string[] = [];
  let allNetworks = '';
  for (const v of networks) {
    const net = ipNetwork(v, false);
    if (net === null) invalid.push(v);
    else if (net.network === 0n) allNetworks = v;
  }
  if (invalid.length > 0) {
    errors.add('networks', shareRefusalText.badNetworks(invalid));
  } else if (allNetworks) {
    // 25.10.1 words it with the loop's variable, the list's last entry (:47-49); 26.0 with the entry found.
    const shown = namesFound ? allNetworks : networks.at(-1)!;
    errors.add(
      'networks',
      `Do not use ${shown} to represent all-networks.  No entry is required to configure 'allow everybody'.  Please remove ${shown}.`,
    );
  } else {
    return networks.map((v) => networkString(ipNetwork(v, false)!));
  }
  return [...networks];
}

/** `sanitize_hosts` (MW/plugins/nfs_/validators.py:58-89). */
function sanitizeHosts(errors: Errors, hosts: readonly string[], namesFound: boolean): void {
  const invalid: string[] = [];
  let allHosts = '';
  for (const v of hosts) {
    if (HOST_SPACE_OR_QUOTE.test(v)) {
      invalid.push(v);
      continue;
    }
    // `0.0.0.0` or `::`: every host, which is said with no entry or `*`.
    if (ipAddress(v)?.value === 0n) allHosts = v;
  }
  if (invalid.length > 0) errors.add('hosts', shareRefusalText.badHosts(invalid));
  if (allHosts) {
    const shown = namesFound ? allHosts : hosts.at(-1)!;
    errors.add(
      'hosts',
      `Do not use ${shown} to represent all-hosts.  No entry is required to configure 'allow everybody'.  Please remove ${shown} or replace with '*'.`,
    );
  }
}

/**
 * The checks before any name is resolved (MW/plugins/nfs.py:555-572): aliases emptied (ignored
 * since ganesha went), networks and hosts unique and well formed. Answers the share with its
 * networks in CIDR form; throws what it found.
 */
export function sanitizeShare(data: NfsShareData, ctx: NfsCheckContext): NfsShareData {
  const errors = new Errors(ctx.schema);
  // MW/plugins/nfs.py:555-556
  const share: NfsShareData = { ...data, aliases: [] };
  // sanitize_share_networks_and_hosts (MW/plugins/nfs.py:660-702)
  confirmUnique(errors, 'networks', share.networks);
  confirmUnique(errors, 'hosts', share.hosts);
  share.networks = sanitizeNetworks(errors, share.networks, ctx.namesFoundEntry);
  sanitizeHosts(errors, share.hosts, ctx.namesFoundEntry);
  errors.check();
  return share;
}

/** `test_for_overlapped_networks(networks)` (MW/plugins/nfs.py:731-756): every overlapping pair, as written. */
function overlappingPairs(networks: readonly string[]): [string, string][] {
  const parsed = networks.map((n) => ipNetwork(n, false)!);
  const pairs: [string, string][] = [];
  for (let i = 0; i < networks.length; i++) {
    for (let j = i + 1; j < networks.length; j++) {
      if (overlaps(parsed[i]!, parsed[j]!)) pairs.push([networks[i]!, networks[j]!]);
    }
  }
  return pairs;
}

/** `validate_share_networks` (MW/plugins/nfs.py:704-729). */
function validateShareNetworks(errors: Errors, networks: readonly string[], dns: ReadonlyMap<string, string | null>) {
  const addresses = [...dns.values()];
  for (const network of networks) {
    const ip = interfaceAddress(network);
    if (ip !== null && addresses.includes(ip)) {
      const host = [...dns].find(([, address]) => address === ip)![0];
      errors.add('networks', `ERROR - Resolved hostname to duplicate address: host '${host}' resolves to '${network}'`);
    }
  }
  const pairs = overlappingPairs(networks);
  if (pairs.length > 0) errors.add('networks', `ERROR - Overlapped subnets: ${pyPairs(pairs)}`);
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];

/** `validate_hosts_and_networks` (MW/plugins/nfs.py:795-899). */
function validateHostsAndNetworks(
  appliance: Appliance,
  errors: Errors,
  others: readonly NfsShareRecord[],
  data: NfsShareData,
  dns: ReadonlyMap<string, string | null>,
  realpathOf: (path: string) => string,
): void {
  // A path that does not exist fails here, as filesystem.stat's CallError (MW/plugins/nfs.py:803).
  const target = statRealpath(appliance, data.path);
  // The networks taken, in the order first taken, by what makes two equal (`==`): one look each.
  const usedNetworks = new Map<string, IpNetwork>();
  const useNetwork = (n: IpNetwork) => {
    const key = networkKey(n);
    if (!usedNetworks.has(key)) usedNetworks.set(key, n);
  };
  const usedHosts = new Set<string>();
  for (const share of others) {
    if (realpathOf(share.path) !== target) continue;
    for (const host of share.hosts) {
      const address = dns.get(host) ?? null;
      if (address === null) {
        usedHosts.add(host);
        continue;
      }
      if (host.startsWith('@')) continue;
      const net = ipNetwork(address, false);
      if (net) usedHosts.add(networkString(net));
    }
    for (const network of share.networks) {
      const net = ipNetwork(network, false);
      if (net) useNetwork(net);
    }
    // A share for everybody takes every network (:843-845).
    if (share.hosts.length === 0 && share.networks.length === 0) {
      useNetwork(ipNetwork('0.0.0.0/0')!);
      useNetwork(ipNetwork('::/0')!);
    }
  }
  for (const text of unique(data.networks)) {
    const network = ipNetwork(text, false)!;
    const shown = networkString(network);
    if (usedNetworks.has(networkKey(network))) {
      errors.add('networks', `ERROR - Another NFS share already exports ${data.path} for network ${shown}`);
    }
    // Python's set keeps no order; the emulator names the first network taken that overlaps.
    const overlapped = [...usedNetworks.values()].find((u) => overlaps(network, u));
    if (overlapped) {
      errors.add(
        'networks',
        `ERROR - This or another NFS share exports ${data.path} to ${networkString(overlapped)} and overlaps network ${shown}`,
      );
    }
    useNetwork(network);
  }
  for (const host of unique(data.hosts)) {
    if (usedHosts.has(host)) {
      errors.add('hosts', `ERROR - Another NFS share already exports ${data.path} for host ${host}`);
      continue;
    }
    if (host.startsWith('@')) continue;
    // A wildcard without a domain is valid as it is (:884-886).
    if (leftmostHasWildcards(host) && domainOf(host) === null) continue;
    if ((dns.get(host) ?? null) === null) errors.add('hosts', `Unable to resolve host '${host}'`);
  }
}

/** `validate_share_path` (MW/plugins/nfs.py:901-951). */
function validateSharePath(
  appliance: Appliance,
  errors: Errors,
  others: readonly NfsShareRecord[],
  data: NfsShareData,
  realpathOf: (path: string) => string,
): void {
  const stat = statEntry(appliance, data.path);
  if (stat.type === 'SYMLINK') errors.add('path', shareRefusalText.nfsSymlink(data.path));
  for (const share of others) {
    if (realpathOf(share.path) !== stat.realpath) continue;
    // An empty hosts list is everybody, as `*` is (:930-932).
    const shareHosts = new Set(share.hosts.filter((h) => h !== '*'));
    const commonHosts = unique(data.hosts.filter((h) => h !== '*' && shareHosts.has(h)));
    const commonNetworks = unique(data.networks.filter((n) => share.networks.includes(n)));
    if (commonHosts.length > 0 || commonNetworks.length > 0) {
      const reason = pySet(commonHosts.length > 0 ? commonHosts : commonNetworks);
      errors.add(
        'path',
        `ERROR - Export conflict. Another share with the same path exports ${share.path} for ${reason}`,
      );
      break;
    }
  }
}

/**
 * The rest of validate, after sanitizeShare and once the names are resolved (MW/plugins/nfs.py:574-658):
 * `others` are the other shares (on update, all but this one), `dns` the addresses of their hosts
 * and the share's. Throws what it finds, at the source's check points.
 */
export function validateShare(
  appliance: Appliance,
  data: NfsShareData,
  others: readonly NfsShareRecord[],
  dns: ReadonlyMap<string, string | null>,
  ctx: NfsCheckContext,
): void {
  const errors = new Errors(ctx.schema);
  // Each other share's path is looked at once, however many checks compare it.
  const realpaths = new Map<string, string>();
  const realpathOf = (path: string) => {
    let real = realpaths.get(path);
    if (real === undefined) realpaths.set(path, (real = shareRealpath(appliance, path)));
    return real;
  };
  // MW/plugins/nfs.py:574-577
  const outside = pathResidesWithinVolume(appliance, data.path);
  if (outside) errors.add('path', outside);
  // MW/plugins/nfs.py:591-593
  validateShareNetworks(errors, data.networks, dns);
  errors.check();
  // MW/plugins/nfs.py:595-599
  validateHostsAndNetworks(appliance, errors, others, data, dns, realpathOf);
  errors.check();
  // MW/plugins/nfs.py:601-604
  validateSharePath(appliance, errors, others, data, realpathOf);
  errors.check();
  // MW/plugins/nfs.py:606-623: a map group needs its user; both must exist (user.get_user_obj,
  // group.get_group_obj: the system's accounts, built-in ones included).
  const accounts = appliance.accounts();
  for (const k of ['maproot', 'mapall'] as const) {
    const user = data[`${k}_user`];
    const group = data[`${k}_group`];
    if (!user && !group) continue;
    if (!user) {
      errors.add(`${k}_user`, 'This field is required when map group is specified');
      continue;
    }
    if (!accounts.users.some((u) => u.username === user)) errors.add(`${k}_user`, `User not found: ${user}`);
    if (group && !accounts.groups.some((g) => g.name === group)) errors.add(`${k}_group`, `Group not found: ${group}`);
  }
  // MW/plugins/nfs.py:625-626
  if (data.maproot_user && data.mapall_user) errors.add('mapall_user', 'maproot_user disqualifies mapall_user');
  // MW/plugins/nfs.py:628-635
  const v4Flavors = data.security.filter((s) => s !== 'SYS');
  if (v4Flavors.length > 0 && !readNfsConfig(appliance.store.db).protocols.includes('NFSV4')) {
    errors.add('security', `The following security flavor(s) require NFSv4 to be enabled: ${v4Flavors.join(',')}.`);
  }
  // MW/plugins/nfs.py:637-658: the emulator is no enterprise system (system.is_enterprise false).
  if (data.expose_snapshots) {
    errors.add('expose_snapshots', 'This is an enterprise feature and may not be enabled without a valid license.');
  }
  // do_create / do_update: verrors.check() (MW/plugins/nfs.py:468, 500)
  errors.check();
}
