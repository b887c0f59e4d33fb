/**
 * Creates of one share sent at once over several connections: the appliance's validation and its
 * insert happen with no other call between them, so exactly one SMB share of a name (in any case)
 * and one NFS export of a path to a network is made, and the others get the refusal a create sent
 * after it gets (MW/plugins/smb.py:1253-1254; MW/plugins/nfs.py:795-951).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';

describe.each(['truenas-25.10.1', 'truenas-26.0'] as const)('concurrent share creates on %s', (release) => {
  it('makes one share of a name or of a path and network; the rest are refused as taken', async () => {
    const server = await startTestServer({ ...EMULATIONS[release], keyLogin: 'plain' });
    await server.testAppliance.call(server.testAppliance.admin, 'pool.dataset.create', { name: 'tank/docs' });
    const clients = await Promise.all([1, 2, 3, 4].map(() => loggedInWs(server.rpcUrl, server.adminKey)));
    const smb = await Promise.all(
      ['race', 'RACE', 'Race', 'race'].map((name, i) =>
        clients[i]!.call('sharing.smb.create', [{ name, path: '/mnt/tank/docs' }]),
      ),
    );
    expect(smb.filter((r) => r.error === undefined).length).toBe(1);
    for (const r of smb.filter((x) => x.error !== undefined))
      expect(JSON.stringify(r.error)).toContain('Share names are case-insensitive and must be unique');
    const nfs = await Promise.all(
      clients.map((c) => c.call('sharing.nfs.create', [{ path: '/mnt/tank/docs', networks: ['10.5.0.0/16'] }])),
    );
    expect(nfs.filter((r) => r.error === undefined).length).toBe(1);
    for (const r of nfs.filter((x) => x.error !== undefined))
      expect(JSON.stringify(r.error)).toContain(
        'Another NFS share already exports /mnt/tank/docs for network 10.5.0.0/16',
      );
    const counted = await clients[0]!.call('sharing.smb.query', [[], { count: true }]);
    expect(counted.result).toBe(1);
  });
});
