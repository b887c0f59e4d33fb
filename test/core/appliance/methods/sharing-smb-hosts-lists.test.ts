/**
 * SMB shares keep hostsallow and hostsdeny as one space-separated column: `compress` joins each
 * list with ' ' (MW/plugins/smb.py:1511-1515) and `extend` splits it with str.split()
 * (MW/plugins/smb.py:1405-1408, 1417-1448), so an entry holding whitespace comes back as its
 * words and an empty entry goes. The model's own example `150.203. EXCEPT 150.203.6.66`
 * (MW/api/v25_10_1/smb.py:289-292) is three entries once stored.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';

async function session() {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  expect((await ws.call('pool.dataset.create', [{ name: 'tank/docs' }])).error).toBeUndefined();
  return ws;
}

type Options = { hostsallow: string[]; hostsdeny: string[] };

describe('sharing.smb hostsallow / hostsdeny as stored (MW/plugins/smb.py:1393-1530)', () => {
  it('answers create and get_instance with each list joined by spaces and split again', async () => {
    const ws = await session();
    const reply = await ws.call('sharing.smb.create', [
      {
        name: 'docs',
        path: '/mnt/tank/docs',
        purpose: 'DEFAULT_SHARE',
        options: { hostsallow: ['150.203. EXCEPT 150.203.6.66', '', '10.0.0.0/8'], hostsdeny: ['ALL\t'] },
      },
    ]);
    expect(reply.error).toBeUndefined();
    const want = { hostsallow: ['150.203.', 'EXCEPT', '150.203.6.66', '10.0.0.0/8'], hostsdeny: ['ALL'] };
    expect((reply.result as { options: Options }).options).toMatchObject(want);
    const got = await ws.call('sharing.smb.get_instance', [1]);
    expect((got.result as { options: Options }).options).toMatchObject(want);
  });

  it('does the same on update', async () => {
    const ws = await session();
    expect((await ws.call('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }])).error).toBeUndefined();
    const reply = await ws.call('sharing.smb.update', [
      1,
      { purpose: 'DEFAULT_SHARE', options: { hostsdeny: ['a b', ' c'] } },
    ]);
    expect(reply.error).toBeUndefined();
    expect((reply.result as { options: Options }).options).toMatchObject({
      hostsallow: [],
      hostsdeny: ['a', 'b', 'c'],
    });
  });
});
