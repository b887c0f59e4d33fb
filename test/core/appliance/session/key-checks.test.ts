import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import {
  SAFETY_MS,
  connectWs,
  loggedInWs,
  postRpc,
  startTestServer,
  type TestServer,
} from '../../../helpers/server.js';

/**
 * For the tests about what hashing costs (hashes queued, a ping answered while they run): every
 * hash a full scrypt, not the suite's cheap one (test/helpers/cheap-hashes.ts); undone after each test.
 */
const fullScrypt = () => vi.stubEnv('STOR_TEST_SCRYPT_N', undefined);
afterEach(() => {
  vi.unstubAllEnvs();
});

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });
const wrongSecret = (key: string) => `${key.split('-')[0]}-${'W'.repeat(64)}`;
const UNKNOWN_ID = `987654-${'W'.repeat(64)}`;

async function meOverHttp(server: TestServer, key: string): Promise<Record<string, any>> {
  return (await postRpc(server.url, call(1, 'auth.me'), { key })).json();
}

async function upload(server: TestServer, key: string, path: string): Promise<{ status: number; text: string }> {
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: [path, {}] }));
  form.append('file', new Blob(['x']), 'x');
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, text: await res.text() };
}

describe('failed key checks limit the failing key id and address, never another valid key', () => {
  it('25 wrong secrets for one key id and 25 unknown ids from one address: those are refused, the valid key still works over POST /api/current and /_upload/', async () => {
    const server = await startTestServer({ httpRpc: 'served' });
    const bob = await createUserWithKey(server.testAppliance, 'bob', { privilegeRoles: ['READONLY_ADMIN'] });
    const answers: string[] = [];
    for (let i = 0; i < 25; i++)
      answers.push(String((await meOverHttp(server, wrongSecret(bob.key))).error?.data?.errname));
    // 20 checks a minute, then the key id is refused from this address before any hash.
    expect(answers).toEqual([...Array(20).fill('ENOTAUTHENTICATED'), ...Array(5).fill('EBUSY')]);
    const unknown: string[] = [];
    for (let i = 0; i < 25; i++) unknown.push(String((await meOverHttp(server, UNKNOWN_ID)).error?.data?.errname));
    expect(unknown).toEqual([...Array(20).fill('ENOTAUTHENTICATED'), ...Array(5).fill('EBUSY')]);
    expect((await meOverHttp(server, wrongSecret(bob.key))).error?.data).toMatchObject({
      errname: 'EBUSY',
      reason: '[EBUSY] Rate Limit Exceeded',
    });

    // The administrator's key, from the same address, is untouched by either budget.
    expect((await meOverHttp(server, server.adminKey)).result).toMatchObject({ pw_name: 'truenas_admin' });
    expect((await upload(server, server.adminKey, '/mnt/tank/still-works.txt')).status).toBe(200);
    // The failing credential is refused on the upload endpoint too (25.10.1's 429 body).
    expect(await upload(server, wrongSecret(bob.key), '/mnt/tank/no.txt')).toEqual({
      status: 429,
      text: '429: Too Many Requests',
    });
    expect(await upload(server, UNKNOWN_ID, '/mnt/tank/no.txt')).toEqual({
      status: 429,
      text: '429: Too Many Requests',
    });
  });

  it('a logged-in session guessing keys: no per-method limit (MW/main.py:875-877), but its failed checks spend the unknown-id budget as a stranger’s would, and it stays logged in', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const answers: unknown[] = [];
    for (let i = 0; i < 22; i++) {
      const reply = await client.call('auth.login_with_api_key', [UNKNOWN_ID]);
      answers.push(reply.error ? reply.error.data?.errname : reply.result);
    }
    // The appliance rate-limits only callers not logged in, so the login that opened the session
    // is not counted against these; the 20 failed checks of an unknown id are
    // (session/key-check-limits.ts, the emulator's stand-in for PAM's delay after a failure).
    expect(answers).toEqual([...Array(20).fill(false), 'EBUSY', 'EBUSY']);
    // auth.login_ex shares the unknown-id budget: spent above, so it is refused before a check.
    const exData = { mechanism: 'API_KEY_PLAIN', username: 'truenas_admin', api_key: UNKNOWN_ID };
    const ex = await client.call('auth.login_ex', [exData]);
    expect(ex.error?.data).toMatchObject({ errname: 'EBUSY', reason: '[EBUSY] Rate Limit Exceeded' });
    // A failed login on a logged-in socket leaves its session as it was (MW/plugins/auth.py:145-152: only a success replaces it).
    expect(await client.result('auth.me')).toMatchObject({ pw_name: 'truenas_admin' });
  });

  it("20 concurrent bad key checks do not hold another client's core.ping (hashing runs off the event loop)", async () => {
    fullScrypt();
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    // Counts the key checks' hashes as they are queued and as they end (FairQueue, appliance.ts).
    const hashes = server.appliance.loginHashes;
    const run = hashes.run.bind(hashes);
    let queued = 0;
    let ended = 0;
    hashes.run = (key, task, caller) => {
      queued++;
      return run(key, () => task().finally(() => ended++), caller);
    };
    const bad = wrongSecret(server.adminKey);
    // Each of these costs a full scrypt: all 20 pass the limit check before the first one fails.
    const attack = Promise.all(
      Array.from({ length: 20 }, (_, i) => postRpc(server.url, call(i, 'core.ping'), { key: bad })),
    );
    // Every check is queued before the first ping: a hash that held the event loop would be over by then.
    await vi.waitFor(() => expect(queued).toBe(20), { timeout: SAFETY_MS, interval: 1 });
    const stillHashing: number[] = [];
    for (let i = 0; i < 9; i++) {
      expect(await client.result('core.ping')).toBe('pong');
      stillHashing.push(queued - ended);
    }
    const replies = await attack;
    // The attack was real: every bad key was checked (and so hashed) and refused.
    expect(replies.map((r) => r.json().result)).toEqual(Array(20).fill('pong'));
    expect(ended).toBe(20);
    const after = await postRpc(server.url, call(1, 'auth.me'), { key: bad });
    expect(after.json().error?.data?.errname).toBe('EBUSY');
    // Availability, counted in turns, not milliseconds: most pings (the median of 9 and all before
    // it) were answered while hashes were still running. With the hashes on the event loop, none
    // is. How long a ping waits against one hash: bench/run.mjs (guards).
    expect(
      stillHashing.filter((n) => n > 0).length,
      `hashes left when each ping was answered: ${stillHashing.join(', ')}`,
    ).toBeGreaterThanOrEqual(5);
  });
});

/** POST /api/current from `localAddress` (any 127.x is loopback on Linux): resolves when sent and when answered. */
function postFrom(
  server: TestServer,
  localAddress: string,
  key: string,
  id: number,
): { sent: Promise<void>; answered: Promise<number> } {
  const body = JSON.stringify(call(id, 'core.ping'));
  let sent!: () => void;
  const sentP = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<number>((resolve, reject) => {
    const req = request(`${server.url}/api/current`, {
      method: 'POST',
      localAddress,
      agent: false,
      timeout: SAFETY_MS,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within SAFETY_MS')));
    req.on('error', reject);
    req.end(body, () => sent());
  });
  return { sent: sentP, answered };
}

describe('key checks are served fairly between addresses', () => {
  it("an administrator's login is checked before a low user's queued flood of keyed HTTP calls from another address", async () => {
    fullScrypt();
    const server = await startTestServer();
    const { key: lowKey } = await createUserWithKey(server.testAppliance, 'low', {
      privilegeRoles: ['READONLY_ADMIN'],
    });
    const admin = await connectWs(server.rpcUrl);
    // 40 valid keyed calls at once from 127.0.0.2, each one scrypt: a queue of hashes.
    const FLOOD = 40;
    const flood = Array.from({ length: FLOOD }, (_, i) => postFrom(server, '127.0.0.2', lowKey, i));
    await Promise.all(flood.map((f) => f.sent));
    // The server has read the flood once it answers its first call: the rest are queued by then.
    let floodDone = 0;
    const counted = flood.map((f) => f.answered.then((status) => (floodDone++, status)));
    await Promise.race(counted);
    const login = admin
      .result('auth.login_with_api_key', [server.adminKey])
      .then((ok) => ({ ok, floodDoneBefore: floodDone }));
    const { ok, floodDoneBefore } = await login;
    expect(ok).toBe(true);
    expect(await Promise.all(counted)).toEqual(Array(FLOOD).fill(200));
    // Served in arrival order, the login waited for every queued hash of the flood; served in
    // turn by address, it waits for at most the few already running.
    expect(floodDoneBefore).toBeLessThan(FLOOD / 2);
  });
});

describe('key checks are served fairly between callers sharing an address', () => {
  // Attack on §12's fix: turns were by address only, so on loopback (the issue's own setting) or
  // behind one NAT or jump host, the administrator's login still waited for the whole flood.
  it("an administrator's login from the flood's own address is checked before a low user's queued flood of keyed HTTP calls", async () => {
    fullScrypt();
    const server = await startTestServer();
    const { key: lowKey } = await createUserWithKey(server.testAppliance, 'low', {
      privilegeRoles: ['READONLY_ADMIN'],
    });
    const admin = await connectWs(server.rpcUrl);
    const FLOOD = 40;
    const flood = Array.from({ length: FLOOD }, (_, i) => postFrom(server, '127.0.0.1', lowKey, i));
    await Promise.all(flood.map((f) => f.sent));
    let floodDone = 0;
    const counted = flood.map((f) => f.answered.then((status) => (floodDone++, status)));
    await Promise.race(counted);
    const { ok, floodDoneBefore } = await admin
      .result('auth.login_with_api_key', [server.adminKey])
      .then((ok) => ({ ok, floodDoneBefore: floodDone }));
    expect(ok).toBe(true);
    expect(await Promise.all(counted)).toEqual(Array(FLOOD).fill(200));
    expect(floodDoneBefore).toBeLessThan(FLOOD / 2);
  });
});
