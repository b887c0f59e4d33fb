import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SAFETY_MS, connectWs, loggedInWs, postRpc, startTestServer, type Message } from '../../helpers/server.js';

interface Me {
  pw_name: string;
  account_attributes: string[];
  privilege: { roles: { $set: string[] } };
}

/** A core.ping request padded (with an ignored member) to exactly `length` characters. */
function pingOfLength(length: number, id: string | number): string {
  const base = JSON.stringify({ jsonrpc: '2.0', id, method: 'core.ping', params: [], pad: '' });
  if (length < base.length) throw new Error('too short');
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'core.ping',
    params: [],
    pad: 'x'.repeat(length - base.length),
  });
  expect(text).toHaveLength(length);
  return text;
}

const isJobEvent = (jobId: number, msg: string, state?: string) => (m: Message) =>
  m.method === 'collection_update' &&
  m.params?.collection === 'core.get_jobs' &&
  m.params?.msg === msg &&
  m.params?.id === jobId &&
  (state === undefined || m.params?.fields?.state === state);

describe('WebSocket JSON-RPC on a real server', () => {
  it('logs in with an API key and reports the administrator with auth.me', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    const login = await client.call('auth.login_with_api_key', [server.adminKey]);
    expect(login).toEqual({ jsonrpc: '2.0', result: true, id: login.id });
    const me = (await client.call('auth.me')).result as Me;
    expect(me.pw_name).toBe('truenas_admin');
    expect(me.account_attributes).toEqual(['LOCAL', 'API_KEY', 'SYS_ADMIN']);
    expect(me.privilege.roles.$set).toHaveLength(141);
    expect(me.privilege.roles.$set).toContain('FULL_ADMIN');
  });

  it('answers a burst of concurrent calls each under its own id', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    type Sent = { id: string | number; method: string; params: unknown[] };
    const sent: Sent[] = [
      { id: randomUUID(), method: 'core.ping', params: [] },
      { id: 0, method: 'core.job_wait', params: [999] },
      { id: randomUUID(), method: 'auth.me', params: [] },
      { id: 7, method: 'core.ping', params: [] },
      { id: randomUUID(), method: 'core.job_wait', params: [998] },
      { id: 123456789, method: 'core.job_wait', params: [997] },
      { id: randomUUID(), method: 'core.ping', params: ['extra'] },
      { id: -3, method: 'auth.me', params: [] },
      { id: randomUUID(), method: 'core.job_wait', params: [996] },
      { id: 42, method: 'no.such_method', params: [] },
    ];
    // One burst, nothing awaited in between.
    const mark = client.messages.length;
    const replies = await Promise.all(sent.map((s) => client.call(s.method, s.params, s.id)));
    // One reply per request, nothing else (no job events: this connection did not subscribe).
    expect(client.messages.slice(mark)).toHaveLength(sent.length);

    const jobIds: number[] = [];
    sent.forEach((s, i) => {
      const reply = replies[i]!;
      expect(reply.id).toStrictEqual(s.id);
      switch (s.method) {
        case 'core.ping':
          if (s.params.length === 0) expect(reply.result).toBe('pong');
          else
            expect(reply.error).toMatchObject({
              code: -32602,
              data: { extra: [['', 'Too many arguments (expected 0, found 1)', 22]] },
            });
          break;
        case 'auth.me':
          expect((reply.result as Me).pw_name).toBe('truenas_admin');
          break;
        case 'core.job_wait':
          expect(typeof reply.result).toBe('number');
          jobIds.push(reply.result as number);
          break;
        default:
          expect(reply.error).toEqual({ code: -32601, message: 'Method does not exist' });
      }
    });
    expect(new Set(jobIds).size).toBe(4);

    // Each job id answered belongs to the job started by that very request: the job records its message id.
    const jobs = (await client.call('core.get_jobs', [[['method', '=', 'core.job_wait']]])).result as {
      id: number;
      message_ids: unknown[];
      arguments: unknown[];
    }[];
    for (const [i, s] of sent.entries()) {
      if (s.method !== 'core.job_wait') continue;
      const job = jobs.find((j) => j.id === replies[i]!.result);
      expect(job).toBeDefined();
      // A falsy request id (0) is not recorded: `[message_id] if message_id else []` (MW/job.py:300).
      expect(job!.message_ids).toEqual(s.id ? [s.id] : []);
      expect(job!.arguments).toEqual(s.params);
    }
  });

  it('sends nothing back for a notification, not even for an unknown method or bad params', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    const notifications = [
      { jsonrpc: '2.0', method: 'core.ping' },
      { jsonrpc: '2.0', method: 'no.such_method', params: [] },
      { jsonrpc: '2.0', method: 'core.ping', params: [1, 2, 3] },
      { jsonrpc: '2.0', method: 'auth.me', params: [] }, // not logged in
      { jsonrpc: '1.0', method: 'core.ping' }, // envelope error without an id
      { jsonrpc: '2.0', method: 'core.ping', params: {} },
    ];
    for (const [i, n] of notifications.entries()) {
      client.send(n);
      const id = `after-${i}`;
      client.send({ jsonrpc: '2.0', id, method: 'core.ping', params: [] });
      // The very next message on the wire is the normal call's reply.
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: 'pong', id });
    }
    expect(client.messages).toHaveLength(notifications.length);
  });

  it('answers every envelope error with the appliance code, message and id, and no data', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    const roundTrip = async (raw: string) => {
      client.send(raw);
      return client.next();
    };

    // -32700: always id null.
    const notJson = await roundTrip('this is not json');
    expect(notJson).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(typeof notJson.error.message).toBe('string');
    expect(notJson.error.message.length).toBeGreaterThan(0);
    expect(notJson.error).not.toHaveProperty('data');
    expect(await roundTrip('')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Expecting value: line 1 column 1 (char 0)' },
    });
    expect(await roundTrip('{"jsonrpc": "2.0", "id": 5, "method": "core.ping"')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    expect(await roundTrip(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'core.ping' }]))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Batch messages are not supported at this time' },
    });
    for (const bare of ['42', '"text"', 'null', 'true']) {
      expect(await roundTrip(bare)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Invalid Message Format' },
      });
    }

    // -32600: the six messages of MW/api/base/server/ws_handler/rpc.py:271-304, answered with the request's id as sent.
    const invalid: [unknown, unknown, string][] = [
      [{ id: 1, method: 'core.ping', params: [] }, 1, "Missing 'jsonrpc' member"],
      [
        { jsonrpc: '1.0', id: 2, method: 'core.ping' },
        2,
        "'jsonrpc' member must be of type string and must be exactly '2.0'",
      ],
      [
        { jsonrpc: 2.0, id: 'two', method: 'core.ping' },
        'two',
        "'jsonrpc' member must be of type string and must be exactly '2.0'",
      ],
      // An invalid id is echoed as sent (rpc.py:309-311).
      [{ jsonrpc: '2.0', id: 1.5, method: 'core.ping' }, 1.5, "'id' member must be of type null, string or number"],
      [
        { jsonrpc: '2.0', id: { a: 1 }, method: 'core.ping' },
        { a: 1 },
        "'id' member must be of type null, string or number",
      ],
      [{ jsonrpc: '2.0', id: 4, params: [] }, 4, "Missing 'method' member"],
      [{ jsonrpc: '2.0', id: 5, method: 5 }, 5, "'method' member must be of type string"],
      [{ jsonrpc: '2.0', id: 6, method: '' }, 6, "'method' member must be of type string"],
      [{ jsonrpc: '2.0', id: 'p', method: 'core.ping', params: {} }, 'p', "'params' member must be of type array"],
      [{ jsonrpc: '2.0', id: null, method: 'core.ping', params: 'x' }, null, "'params' member must be of type array"],
    ];
    for (const [request, id, message] of invalid) {
      expect(await roundTrip(JSON.stringify(request)), JSON.stringify(request)).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message },
      });
    }

    // -32601 before login: the method lookup comes before authentication.
    expect(await client.call('no.such_method', [], 'm1')).toEqual({
      jsonrpc: '2.0',
      id: 'm1',
      error: { code: -32601, message: 'Method does not exist' },
    });
    expect(await client.call('auth.nope', [1, 2], 9)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'Method does not exist' },
    });
    // `"id": null` is a real id and gets a reply with id null.
    expect(await roundTrip(JSON.stringify({ jsonrpc: '2.0', id: null, method: 'core.ping' }))).toEqual({
      jsonrpc: '2.0',
      id: null,
      result: 'pong',
    });
  });

  it('refuses authenticated methods before login with ENOTAUTHENTICATED, and answers core.ping', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    expect(await client.call('core.ping', [], 'p')).toEqual({ jsonrpc: '2.0', id: 'p', result: 'pong' });
    for (const method of ['auth.me', 'core.get_jobs', 'core.subscribe']) {
      const reply = await client.call(method, method === 'core.subscribe' ? ['core.get_jobs'] : []);
      expect(reply.error).toMatchObject({
        code: -32001,
        message: 'Method call error',
        data: { error: 207, errname: 'ENOTAUTHENTICATED', reason: '[ENOTAUTHENTICATED] Not authenticated' },
      });
    }
    // A wrong key is a plain false, and the connection stays unauthenticated.
    expect((await client.call('auth.login_with_api_key', ['1-wrong'])).result).toBe(false);
    expect((await client.call('auth.me')).error?.data?.error).toBe(207);
  });

  describe('frame limits and close codes', () => {
    it('accepts 8192 characters before login and closes 1007 beyond', async () => {
      const server = await startTestServer();
      const client = await connectWs(server.rpcUrl);
      expect(await client.call('core.ping', [], 'small')).toMatchObject({ result: 'pong' });
      client.send(pingOfLength(8192, 'edge'));
      expect(await client.next()).toMatchObject({ id: 'edge', result: 'pong' });
      client.send(pingOfLength(8193, 'over'));
      expect(await client.closed).toEqual({ code: 1007, reason: 'Anonymous connection max message length is 8 kB' });
      expect(client.messages.some((m) => m.id === 'over')).toBe(false);
    });

    it('accepts up to 64 kB after login and closes 1009 beyond', async () => {
      const server = await startTestServer();
      const client = await loggedInWs(server.rpcUrl, server.adminKey);
      client.send(pingOfLength(20_000, 'twenty-k'));
      expect(await client.waitFor((m) => m.id === 'twenty-k')).toEqual({
        jsonrpc: '2.0',
        id: 'twenty-k',
        result: 'pong',
      });
      client.send(pingOfLength(65_536, 'edge'));
      expect(await client.waitFor((m) => m.id === 'edge')).toMatchObject({ result: 'pong' });
      client.send(pingOfLength(65_537, 'over'));
      expect(await client.closed).toEqual({ code: 1009, reason: 'Max message length is 64 kB' });
      expect(client.messages.some((m) => m.id === 'over')).toBe(false);
    });

    it('closes 1003 on a binary frame', async () => {
      const server = await startTestServer();
      const client = await connectWs(server.rpcUrl);
      client.ws.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping' })), { binary: true });
      const { code, reason } = await client.closed;
      expect(code).toBe(1003);
      expect(reason).toMatch(/^Invalid websocket message type: /);
      expect(client.messages).toHaveLength(0);
    });

    it('keeps the 8 kB limit after a failed login', async () => {
      const server = await startTestServer();
      const client = await connectWs(server.rpcUrl);
      expect((await client.call('auth.login_with_api_key', ['1-wrong'])).result).toBe(false);
      client.send(pingOfLength(9000, 'still-anonymous'));
      expect((await client.closed).code).toBe(1007);
    });
  });

  it('refuses calls past 20 in flight with -32000, on that connection only', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const other = await loggedInWs(server.rpcUrl, server.adminKey);

    // Job 1 waits for job 1: it never ends, so anything waiting for it stays in flight.
    expect(await client.result('core.set_options', [{ legacy_jobs: true }])).toMatchObject({ legacy_jobs: true });
    expect(await client.result('core.job_wait', [1])).toBe(1);
    expect(await client.result('core.set_options', [{ legacy_jobs: false }])).toMatchObject({ legacy_jobs: false });

    const ids = Array.from({ length: 25 }, (_, i) => `wait-${i}`);
    for (const id of ids) client.send({ jsonrpc: '2.0', id, method: 'core.job_wait', params: [1] });

    const refused: Message[] = [];
    for (let i = 0; i < 5; i++)
      refused.push(
        await client.waitFor((m) => typeof m.id === 'string' && m.id.startsWith('wait-'), `refusal ${i + 1}`),
      );
    for (const r of refused) {
      expect(r.error).toEqual({ code: -32000, message: 'Maximum number of concurrent calls (20) has exceeded' });
    }
    // The connection is still full: one more call is refused too (the check comes before authentication and execution).
    expect(await client.call('core.ping', [], 'one-more')).toEqual({
      jsonrpc: '2.0',
      id: 'one-more',
      error: { code: -32000, message: 'Maximum number of concurrent calls (20) has exceeded' },
    });
    // Exactly five of the 25 were refused: the first 20 arrived in order and are still waiting, unanswered.
    const answered = client.messages.filter((m) => typeof m.id === 'string' && m.id.startsWith('wait-'));
    expect(answered).toHaveLength(5);
    expect(answered.map((m) => m.id).sort()).toEqual(ids.slice(20).sort());

    // Another connection of the same user is unaffected.
    expect(await other.call('core.ping', [], 'other')).toEqual({ jsonrpc: '2.0', id: 'other', result: 'pong' });
    expect((await other.call('core.get_jobs', [[['id', '=', 1]]])).result).toMatchObject([{ id: 1, state: 'RUNNING' }]);
  });

  it('pushes core.get_jobs events to a subscriber until it unsubscribes', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const subscription = await client.result<string>('core.subscribe', ['core.get_jobs']);
    expect(subscription).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // legacy_jobs is the default: the call answers the job id; the job fails, job 999 does not exist.
    const jobId = await client.result<number>('core.job_wait', [999]);
    expect(typeof jobId).toBe('number');
    const added = await client.waitFor(isJobEvent(jobId, 'added'), `added event for job ${jobId}`);
    expect(Object.keys(added)).toEqual(['jsonrpc', 'method', 'params']);
    expect(added).toMatchObject({
      jsonrpc: '2.0',
      method: 'collection_update',
      params: {
        msg: 'added',
        collection: 'core.get_jobs',
        id: jobId,
        fields: { id: jobId, method: 'core.job_wait', arguments: [999] },
      },
    });
    expect(added).not.toHaveProperty('id');
    const changed = await client.waitFor(isJobEvent(jobId, 'changed', 'FAILED'), `FAILED event for job ${jobId}`);
    expect(changed.params.fields).toMatchObject({
      id: jobId,
      state: 'FAILED',
      error: '[ENOENT] None: Job with id 999 does not exist',
      exc_info: { type: 'VALIDATION' },
    });
    expect(changed.params.fields.time_finished).toHaveProperty('$date');

    // The same job as core.get_jobs reports it.
    const [listed] = (await client.call('core.get_jobs', [[['id', '=', jobId]]])).result as Record<string, unknown>[];
    expect(listed).toEqual(changed.params.fields);

    expect(await client.call('core.unsubscribe', [subscription], 'unsub')).toEqual({
      jsonrpc: '2.0',
      id: 'unsub',
      result: null,
    });
    const mark = client.messages.length;
    const second = await client.result<number>('core.job_wait', [999]);
    expect(second).toBeGreaterThan(jobId);
    expect(await client.call('core.ping', [], 'after')).toMatchObject({ result: 'pong' });
    const since = client.messages.slice(mark);
    expect(since.map((m) => m.id ?? m.method)).toEqual([expect.any(String), 'after']);
    expect(since.some((m) => m.method === 'collection_update')).toBe(false);
  });

  it('does not send job events to a connection that did not subscribe', async () => {
    const server = await startTestServer();
    const watcher = await loggedInWs(server.rpcUrl, server.adminKey);
    const bystander = await loggedInWs(server.rpcUrl, server.adminKey);
    await watcher.result('core.subscribe', ['core.get_jobs']);
    const jobId = await bystander.result<number>('core.job_wait', [999]);
    // The administrator may read every job: the subscriber sees the bystander's job fail.
    await watcher.waitFor(isJobEvent(jobId, 'changed', 'FAILED'));
    expect(await bystander.call('core.ping', [], 'p')).toMatchObject({ result: 'pong' });
    expect(bystander.messages.some((m) => m.method === 'collection_update')).toBe(false);
  });

  it('rate-limits anonymous logins: 20 per address, then EBUSY', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    const wrong = `${server.adminKey.split('-')[0]}-${'x'.repeat(64)}`;
    for (let i = 0; i < 20; i++) {
      expect(await client.call('auth.login_with_api_key', [wrong], i)).toEqual({
        jsonrpc: '2.0',
        id: i,
        result: false,
      });
    }
    const limited = await client.call('auth.login_with_api_key', [wrong], 20);
    expect(limited.id).toBe(20);
    expect(limited.error).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 16, errname: 'EBUSY', reason: '[EBUSY] Rate Limit Exceeded' },
    });
    // The limit is per address, not per connection: a new connection from 127.0.0.1 is limited as well, even with the right key.
    const again = await connectWs(server.rpcUrl);
    expect((await again.call('auth.login_with_api_key', [server.adminKey])).error?.data?.error).toBe(16);
    // core.set_options is not rate limited.
    for (let i = 0; i < 25; i++) expect((await again.call('core.set_options', [{}])).result).toBeDefined();
  });

  it('does not rate-limit a logged-in connection, logins included, nor count its calls against the address (MW/main.py:875-877)', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    expect((await client.call('auth.login_with_api_key', [server.adminKey])).result).toBe(true);
    for (let i = 0; i < 25; i++)
      expect((await client.call('auth.login_with_api_key', [server.adminKey], i)).result, `call ${i}`).toBe(true);
    // Those 25 left the address's budget whole: a stranger from 127.0.0.1 still logs in.
    const stranger = await connectWs(server.rpcUrl);
    expect((await stranger.call('auth.login_with_api_key', [server.adminKey])).result).toBe(true);
  });

  it('core.set_options answers the whole option object and ignores unknown keys', async () => {
    const server = await startTestServer();
    const client = await connectWs(server.rpcUrl);
    expect(await client.result('core.set_options', [{}])).toEqual({
      legacy_jobs: true,
      private_methods: false,
      py_exceptions: false,
    });
    expect(await client.result('core.set_options', [{ legacy_jobs: false }])).toEqual({
      legacy_jobs: false,
      private_methods: false,
      py_exceptions: false,
    });
    expect(await client.result('core.set_options', [{ py_exceptions: true, no_such_option: 1 }])).toEqual({
      legacy_jobs: false,
      private_methods: false,
      py_exceptions: true,
    });
    // Options are per connection.
    const other = await connectWs(server.rpcUrl);
    expect(await other.result('core.set_options', [{}])).toEqual({
      legacy_jobs: true,
      private_methods: false,
      py_exceptions: false,
    });
    // With legacy_jobs false a job call answers with the job's own failure.
    await client.result('auth.login_with_api_key', [server.adminKey]);
    expect((await client.call('core.job_wait', [999])).error).toMatchObject({
      code: -32602,
      message: 'Invalid params',
      data: {
        error: 22,
        reason: '[ENOENT] None: Job with id 999 does not exist',
        extra: [[null, 'Job with id 999 does not exist', 2]],
      },
    });
  });

  it("serves /api/v25.10.1 (and 25.10.1's older versions) like /api/current and refuses an upgrade on any other path with 404", async () => {
    const server = await startTestServer();
    const versioned = server.rpcUrl.replace(/\/api\/current$/, '/api/v25.10.1');
    expect(versioned).not.toBe(server.rpcUrl);
    const client = await loggedInWs(versioned, server.adminKey);
    expect(((await client.call('auth.me')).result as Me).pw_name).toBe('truenas_admin');
    expect(
      (
        await postRpc(
          server.url,
          { jsonrpc: '2.0', id: 1, method: 'core.ping' },
          { path: '/api/v25.10.1', key: server.adminKey },
        )
      ).json(),
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'pong',
    });
    // Every API version 25.10.1 has is a route (MW/main.py:200-215, :277-278), v24.10 too though unlisted.
    for (const version of ['v24.10', 'v25.04.0']) {
      const older = await loggedInWs(server.rpcUrl.replace(/\/api\/current$/, `/api/${version}`), server.adminKey);
      expect(((await older.call('auth.me')).result as Me).pw_name, version).toBe('truenas_admin');
    }

    for (const path of ['/api/v25.10.2', '/api/v26.0.0', '/websocket', '/api/current/extra', '/']) {
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(server.rpcUrl.replace(/\/api\/current$/, path));
        const timer = setTimeout(() => reject(new Error(`no answer for ${path}`)), SAFETY_MS);
        ws.on('unexpected-response', (_req, res) => {
          clearTimeout(timer);
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('open', () => {
          clearTimeout(timer);
          ws.terminate();
          reject(new Error(`upgrade on ${path} was accepted`));
        });
        ws.on('error', () => undefined);
      });
      expect(status, path).toBe(404);
    }
  });
});
