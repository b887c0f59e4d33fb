import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createUserWithKey } from '../../helpers/appliance.js';
import { SAFETY_MS, postRpc, startTestServer } from '../../helpers/server.js';

interface Me {
  pw_name: string;
  account_attributes: string[];
  privilege: { roles: { $set: string[] } };
}

/** A raw request with node:http, for what fetch hides (exact status on a body cut short). */
function rawRequest(
  url: string,
  options: { method: string; path: string; headers?: Record<string, string | number>; body?: Buffer; agent?: Agent },
) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(
      `${url}${options.path}`,
      { method: options.method, headers: options.headers, agent: options.agent, timeout: SAFETY_MS },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('safety timeout')));
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('HTTP on a real server', () => {
  it("GET /api/versions lists 25.10.1's API versions, v24.10 left out (MW/main.py:168-184, :1300-1304)", async () => {
    const server = await startTestServer();
    const res = await fetch(`${server.url}/api/versions`, { signal: AbortSignal.timeout(SAFETY_MS) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(['v25.04.0', 'v25.04.1', 'v25.04.2', 'v25.10.0', 'v25.10.1']);
  });

  it('POST /api/current with a bearer key runs the call as that user', async () => {
    const server = await startTestServer();
    const res = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 'me', method: 'auth.me', params: [] },
      { key: server.adminKey },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const reply = res.json();
    expect(reply.id).toBe('me');
    const me = reply.result as Me;
    expect(me.pw_name).toBe('truenas_admin');
    expect(me.account_attributes).toEqual(['LOCAL', 'API_KEY', 'SYS_ADMIN']);
    expect(me.privilege.roles.$set).toHaveLength(141);
    // Each request is its own session: a key on one request does not carry to the next.
    const anonymous = await postRpc(server.url, { jsonrpc: '2.0', id: 2, method: 'auth.me', params: [] });
    expect(anonymous.json().error?.data?.error).toBe(207);
  });

  it('answers without a key with ENOTAUTHENTICATED, as JSON-RPC over HTTP 200', async () => {
    const server = await startTestServer();
    const res = await postRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'auth.me', params: [] });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32001,
        message: 'Method call error',
        data: { error: 207, errname: 'ENOTAUTHENTICATED', reason: '[ENOTAUTHENTICATED] Not authenticated' },
      },
    });
    // core.ping needs no key.
    expect((await postRpc(server.url, { jsonrpc: '2.0', id: 2, method: 'core.ping' })).json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: 'pong',
    });
  });

  it('sends JSON-RPC errors with HTTP 200', async () => {
    const server = await startTestServer();
    const key = server.adminKey;

    const unknown = await postRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'no.such_method', params: [] }, { key });
    expect(unknown.status).toBe(200);
    expect(unknown.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Method does not exist' },
    });

    const invalid = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'core.job_wait', params: ['one'] },
      { key },
    );
    expect(invalid.status).toBe(200);
    expect(invalid.json()).toMatchObject({
      id: 2,
      error: {
        code: -32602,
        message: 'Invalid params',
        data: {
          error: 22,
          errname: 'EINVAL',
          reason: '[EINVAL] id: Input should be a valid integer\n',
          extra: [['id', 'Input should be a valid integer', 22]],
        },
      },
    });
    const tooMany = await postRpc(server.url, { jsonrpc: '2.0', id: 3, method: 'core.ping', params: [1, 2] }, { key });
    expect(tooMany.status).toBe(200);
    expect(tooMany.json().error).toMatchObject({
      code: -32602,
      data: { extra: [['', 'Too many arguments (expected 0, found 2)', 22]] },
    });

    const parse = await postRpc(server.url, '{"jsonrpc": "2.0", "id": 4,', { key });
    expect(parse.status).toBe(200);
    expect(parse.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(parse.json().error).not.toHaveProperty('data');

    const batch = await postRpc(server.url, [{ jsonrpc: '2.0', id: 5, method: 'core.ping' }], { key });
    expect(batch.status).toBe(200);
    expect(batch.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Batch messages are not supported at this time' },
    });

    const envelope = await postRpc(server.url, { jsonrpc: '2.0', id: 6, method: 'core.ping', params: {} }, { key });
    expect(envelope.status).toBe(200);
    expect(envelope.json()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32600, message: "'params' member must be of type array" },
    });
  });

  it('answers a notification with 204 and no body', async () => {
    const server = await startTestServer();
    for (const body of [
      { jsonrpc: '2.0', method: 'core.ping' },
      { jsonrpc: '2.0', method: 'no.such_method', params: [] },
      { jsonrpc: '2.0', method: 'auth.me', params: [] },
    ]) {
      const res = await postRpc(server.url, body, { key: server.adminKey });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
  });

  it('answers GET /api/current without an upgrade with 400, other methods with 405, other paths with 404', async () => {
    const server = await startTestServer();
    const get = await fetch(`${server.url}/api/current`, { signal: AbortSignal.timeout(SAFETY_MS) });
    expect(get.status).toBe(400);
    expect(await get.text()).toBe('No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".');
    const put = await fetch(`${server.url}/api/current`, {
      method: 'PUT',
      body: '{}',
      signal: AbortSignal.timeout(SAFETY_MS),
    });
    expect(put.status).toBe(405);
    await put.text();
    const missing = await fetch(`${server.url}/api/nothing-here`, { signal: AbortSignal.timeout(SAFETY_MS) });
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it('refuses a body larger than 64 KiB with 413 and accepts one of exactly 64 KiB', async () => {
    const server = await startTestServer();
    const padded = (length: number) => {
      const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [], pad: '' });
      return Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'core.ping',
          params: [],
          pad: 'x'.repeat(length - base.length),
        }),
      );
    };
    const headers = (body: Buffer) => ({
      'content-type': 'application/json',
      'content-length': body.length,
      authorization: `Bearer ${server.adminKey}`,
    });
    // One keep-alive socket for everything: a refused upload must not leave a dead socket in the pool.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    onTestFinished(() => agent.destroy());
    const post = (body: Buffer) =>
      rawRequest(server.url, { method: 'POST', path: '/api/current', headers: headers(body), body, agent });

    const edge = padded(65_536);
    expect(edge.length).toBe(65_536);
    const ok = await post(edge);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ jsonrpc: '2.0', id: 1, result: 'pong' });

    for (const size of [65_537, 70_000, 1_000_000]) {
      const refused = await post(padded(size));
      expect(refused.status, String(size)).toBe(413);
      expect(refused.headers.connection).toBe('close');
      // The next request on the same agent is answered normally.
      const after = await post(padded(100));
      expect(after.status).toBe(200);
    }
    // And through fetch.
    const viaFetch = await fetch(`${server.url}/api/current`, {
      method: 'POST',
      body: padded(80_000),
      signal: AbortSignal.timeout(SAFETY_MS),
    });
    expect(viaFetch.status).toBe(413);
    await viaFetch.text();
  });

  it('fails every call of a user bound to a looping privilege with the RecursionError of 25.10.1', async () => {
    const server = await startTestServer({ roleExpansion: 'as-reported' });
    const { key } = await createUserWithKey(server.testAppliance, 'alice', {
      group: 'ops',
      privilegeRoles: ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
    });
    for (const method of ['core.ping', 'auth.me', 'no.such_method']) {
      const res = await postRpc(server.url, { jsonrpc: '2.0', id: 1, method, params: [] }, { key });
      expect(res.status).toBe(200);
      const { error } = res.json();
      expect(error?.code).toBe(-32001);
      expect(error?.message).toBe('Method call error');
      expect(error?.data).toMatchObject({
        error: 22,
        errname: 'EINVAL',
        reason: 'maximum recursion depth exceeded',
        trace: { class: 'RecursionError' },
        extra: null,
      });
    }
    // The administrator is not bound to that privilege and is unaffected.
    const admin = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'auth.me', params: [] },
      { key: server.adminKey },
    );
    expect((admin.json().result as Me).pw_name).toBe('truenas_admin');
  });
});
