/**
 * The lookups of sharing.nfs.create's host names, on name servers of the test's own (a real DNS
 * server on 127.0.0.1): 25.10.1 asks `dnsclient.forward_lookup` (MW/plugins/nfs.py:758-793), A and
 * AAAA at once with a 12 s lifetime (MW/plugins/dns_client.py:15-19, 87-124), and a name whose
 * lookup fails or times out is None, refused as `Unable to resolve host` (MW/plugins/nfs.py:781-783,
 * 888-894). The emulator bounds each lookup and all of a request's together; the bounds here are
 * short so that a name server that never answers ends the test soon.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostLookup } from '../../../../src/core/appliance/shares/nfs-hosts.js';
import { NameServerResolver, type HostResolver } from '../../../../src/core/appliance/shares/host-resolver.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { startNameServer, type TestNameServer } from '../../../helpers/name-server.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const EINVAL = 22;
const PATH = '/mnt/tank/nfs';

/** An appliance with dataset tank/nfs whose host names are asked of `ns`, with `hostsFile` read first. */
async function setup(ns: TestNameServer, bounds: Omit<HostLookup, 'resolver'>, hostsFile = ''): Promise<TestAppliance> {
  const hosts = join(tempDir(), 'hosts');
  writeFileSync(hosts, hostsFile);
  const resolver = new NameServerResolver({ servers: [ns.address], hostsFile: hosts });
  const t = await openTestAppliance(undefined, undefined, { resolver, ...bounds });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/nfs' });
  return t;
}

async function refusedCreate(t: TestAppliance, data: Record<string, unknown>): Promise<unknown[]> {
  const err: RpcError = await t.callError(t.admin, 'sharing.nfs.create', { path: PATH, ...data });
  expect(err.code).toBe(-32602);
  return err.data!.extra as unknown[];
}

const unresolved = (host: string) => ['sharingnfs_create.hosts', `Unable to resolve host '${host}'`, EINVAL];
const duplicate = (host: string, network: string) => [
  'sharingnfs_create.networks',
  `ERROR - Resolved hostname to duplicate address: host '${host}' resolves to '${network}'`,
  EINVAL,
];

describe('sharing.nfs.create: looking up host names', () => {
  it('a name the name servers answer is their A record; the hosts file, localhost and .invalid are answered without asking', async () => {
    const ns = await startNameServer({ records: { 'client.example.com': ['10.9.9.9'] } });
    const t = await setup(ns, { lookupMs: 60_000, requestMs: 60_000 }, '10.8.8.8 Filed-Host # the hosts file\n');
    expect(await refusedCreate(t, { networks: ['10.9.9.9'], hosts: ['client.example.com'] })).toEqual([
      duplicate('client.example.com', '10.9.9.9/32'),
    ]);
    expect(await refusedCreate(t, { networks: ['10.8.8.8'], hosts: ['filed-host'] })).toEqual([
      duplicate('filed-host', '10.8.8.8/32'),
    ]);
    expect(await refusedCreate(t, { networks: ['127.0.0.1'], hosts: ['localhost'] })).toEqual([
      duplicate('localhost', '127.0.0.1/32'),
    ]);
    expect(await refusedCreate(t, { hosts: ['gone.invalid'] })).toEqual([unresolved('gone.invalid')]);
    expect([...ns.asked].sort()).toEqual(['client.example.com A', 'client.example.com AAAA']);
  });

  it('a name the name servers never answer is refused as unresolved once its lookup has had its time', async () => {
    const ns = await startNameServer({ silent: true });
    const t = await setup(ns, { lookupMs: 200, requestMs: 3_600_000 });
    expect(await refusedCreate(t, { hosts: ['slow.example.com'] })).toEqual([unresolved('slow.example.com')]);
    // Unbounded, the resolver's own retries (4 s, then longer) outlast this guard.
  }, 15_000);

  it('a resolver that never settles, even when told to stop, holds a request no longer than its bound', async () => {
    const hanging: HostResolver = { addresses: () => new Promise<string[]>(() => undefined) };
    const t = await openTestAppliance(undefined, undefined, { resolver: hanging, lookupMs: 200, requestMs: 3_600_000 });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/nfs' });
    expect(await refusedCreate(t, { hosts: ['stuck.example.com'] })).toEqual([unresolved('stuck.example.com')]);
  }, 60_000);

  it('all the names of one request end at its bound: the names not yet asked are not asked, and none resolves', async () => {
    const ns = await startNameServer({ silent: true });
    const t = await setup(ns, { lookupMs: 3_600_000, requestMs: 200 });
    const hosts = Array.from({ length: 20 }, (_, i) => `h${String(i).padStart(2, '0')}.example.com`);
    expect(await refusedCreate(t, { hosts })).toEqual(hosts.map(unresolved));
    // 25.10.1 asks 8 names at a time (asyncio_map(resolve, hostnames, 8), MW/plugins/nfs.py:791).
    const first8 = new Set(hosts.slice(0, 8));
    expect(ns.asked.filter((q) => !first8.has(q.split(' ')[0]!))).toEqual([]);
  }, 60_000);
});
