import { describe, expect, it } from 'vitest';
import { postRpc, startTestServer } from '../../helpers/server.js';

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

describe('bearer keys over HTTP', () => {
  it('stops checking a key id from an address after 20 failures a minute, there and on the upload endpoint', async () => {
    const server = await startTestServer();
    const wrong = `1-${'W'.repeat(64)}`;
    for (let i = 0; i < 20; i++) {
      const r = (await postRpc(server.url, call(i, 'auth.me'), { key: wrong })).json();
      expect(r.error?.data?.errname).toBe('ENOTAUTHENTICATED');
    }
    const limited = (await postRpc(server.url, call(99, 'auth.me'), { key: wrong })).json();
    expect(limited.error?.data).toMatchObject({ errname: 'EBUSY', reason: '[EBUSY] Rate Limit Exceeded' });
    // The upload endpoint shares the budget: no more checks of this key id from this address.
    // (Other keys from the same address still work: test/core/appliance/session/key-checks.test.ts.)
    const form = new FormData();
    form.append('data', JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/x', {}] }));
    form.append('file', new Blob(['x']), 'x');
    const upload = await fetch(`${server.url}/_upload/`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${wrong}` },
    });
    expect([upload.status, await upload.text()]).toEqual([429, '429: Too Many Requests']);
  });

  it('refuses subscriptions over HTTP, which has no channel for events', async () => {
    const server = await startTestServer();
    const r = (
      await postRpc(server.url, call(1, 'core.subscribe', ['core.get_jobs']), { key: server.adminKey })
    ).json();
    expect(r.error?.data?.reason).toBe('[EINVAL] Subscriptions need a WebSocket connection to /api/current');
  });
});
