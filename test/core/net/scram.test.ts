/**
 * SCRAM-SHA-512 key login of `stor serve --key-login scram`, driven with raw JSON-RPC frames over
 * ws:// and wss://, against TrueNAS 26's source (branch stable/26 = 26.0.0-RC.1): MW/plugins/auth.py,
 * MW/plugins/auth_/login_ex_impl.py, MW/utils/account/authenticator.py, MW/plugins/api_key.py. The
 * client side of each exchange is src/core/net/scram.ts, itself checked against RFC vectors
 * (test/core/net/scram-unit.test.ts).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, onTestFinished, describe, expect, it, vi } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { contractViolations } from '../../../src/core/contract/conformance.js';
import { apiKeyContract26 } from '../../../src/core/contract/v26_0_0/api-key.js';
import { loginExResult26 } from '../../../src/core/contract/v26_0_0/auth.js';
import {
  buildClientFinal,
  buildClientFirst,
  keysFromSaltedPassword,
  newNonce,
  parseServerFirst,
  saltedPassword,
  serverFinalMatches,
  tlsServerEndPoint,
} from '../../../src/core/net/scram.js';
import { startServer } from '../../../src/core/server/server.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { connectWs, type WsClient } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { errorOf } from '../../conformance/harness.js';

/** `--emulate truenas-25.10.1 --key-login scram` on port 0, over TLS when asked; `log` collects `stor serve -v` lines. */
async function scramServer(tls = false) {
  const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'scram' });
  const pem = tls ? selfSignedCert(tempDir()) : null;
  const log: string[] = [];
  const running = await startServer({
    appliance: t.appliance,
    host: '127.0.0.1',
    port: 0,
    log: (line) => log.push(line),
    ...(pem ? { tls: { cert: readFileSync(pem.cert), key: readFileSync(pem.key) } } : {}),
  });
  onTestFinished(() => running.close(100));
  const certDer = pem ? new X509Certificate(readFileSync(pem.cert)).raw : null;
  const connect = () => connectWs(running.rpcUrl, { rejectUnauthorized: false });
  return { t, running, log, certDer, connect };
}

/** One answer of auth.login_ex, checked against 26's AuthLoginExResult (MW/api/v26_0_0/auth.py:325-332). */
async function loginEx(client: WsClient, data: unknown): Promise<Record<string, any>> {
  const reply = await client.call('auth.login_ex', [data]);
  expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
  expect(contractViolations(loginExResult26(), reply.result)).toEqual([]);
  return reply.result as Record<string, any>;
}

const first = (rfc_str: string) => ({ mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str });
const final = (rfc_str: string) => ({ mechanism: 'SCRAM', scram_type: 'CLIENT_FINAL_MESSAGE', rfc_str });

/**
 * 26's own iteration count, not the suite's cheaper one (test/helpers/cheap-hashes.ts), for the
 * tests that check the count; undone after each test.
 */
const realIterations = () => vi.stubEnv('STOR_TEST_SCRAM_ITERATIONS', undefined);
afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * The client's half of one exchange for `key` (`<id>-<secret>`) as `username`: channel-bound to
 * `binding` when given. Returns both answers and whether the server's signature checked out.
 */
async function exchange(
  client: WsClient,
  username: string,
  key: string,
  binding: Buffer | null = null,
  secretOverride?: string,
) {
  const id = Number(key.split('-')[0]);
  const secret = secretOverride ?? key.slice(key.indexOf('-') + 1);
  const nonce = newNonce();
  const cf = buildClientFirst(username, id, nonce, binding !== null);
  const one = await loginEx(client, first(cf.rfc));
  if (one.response_type !== 'SCRAM_RESPONSE') return { one };
  const sf = parseServerFirst(one.rfc_str, nonce);
  const keys = keysFromSaltedPassword(await saltedPassword(secret, sf.salt, sf.iterations));
  const built = buildClientFinal(cf.gs2Header, binding, sf.nonce, cf.bare, sf.rfc, keys);
  const two = await loginEx(client, final(built.rfc));
  return {
    one,
    two,
    verified:
      two.response_type === 'SCRAM_RESPONSE' && serverFinalMatches(two.rfc_str, keys.serverKey, built.authMessage),
  };
}

describe('SCRAM key login as TrueNAS 26 (keyLogin: scram)', () => {
  it('auth.mechanism_choices lists SCRAM, before any login (MW/plugins/auth.py:707-723, MW/utils/auth.py:96-104 at stable/26)', async () => {
    const { connect } = await scramServer();
    const client = await connect();
    expect((await client.call('auth.mechanism_choices')).result).toEqual([
      'API_KEY_PLAIN',
      'TOKEN_PLAIN',
      'PASSWORD_PLAIN',
      'SCRAM',
    ]);
  });

  it('the unbound flow over ws://: SERVER_FIRST_RESPONSE (500,000 rounds, 16-byte salt), then SERVER_FINAL_RESPONSE with a verifiable v= and user_info (MW/plugins/auth.py:927-956)', async () => {
    realIterations();
    const { t, connect, log } = await scramServer();
    const { key } = await createUserWithKey(t, 'carol', { privilegeRoles: ['READONLY_ADMIN'] });
    const client = await connect();
    const { one, two, verified } = await exchange(client, 'carol', key);
    expect(Object.keys(one)).toEqual(['response_type', 'scram_type', 'rfc_str', 'user_info']);
    expect(one).toMatchObject({
      response_type: 'SCRAM_RESPONSE',
      scram_type: 'SERVER_FIRST_RESPONSE',
      user_info: null,
    });
    expect(one.rfc_str).toMatch(/^r=[A-Za-z0-9+/]{86}==,s=[A-Za-z0-9+/]{22}==,i=500000$/);
    expect(two).toMatchObject({
      response_type: 'SCRAM_RESPONSE',
      scram_type: 'SERVER_FINAL_RESPONSE',
      user_info: { pw_name: 'carol' },
    });
    expect(two!.rfc_str).toMatch(/^v=/);
    expect(verified).toBe(true);
    // The account attributes say how the session logged in (MW/utils/account/authenticator.py:536-540).
    expect(two!.user_info.account_attributes).toEqual(expect.arrayContaining(['API_KEY', 'SCRAM']));
    expect(((await client.call('auth.me')).result as { pw_name: string }).pw_name).toBe('carol');
    expect(log.some((l) => /^login ok: auth\.login_ex SCRAM, user carol, key id \d+, from 127\.0\.0\.1$/.test(l))).toBe(
      true,
    );
    expect(log.join('\n')).not.toContain(key.slice(key.indexOf('-') + 1));
  });

  it('channel binding asked for over plain ws:// is AUTH_ERR at CLIENT_FIRST_MESSAGE (MW/utils/account/authenticator.py:467-472)', async () => {
    const { t, connect } = await scramServer();
    const { key } = await createUserWithKey(t, 'dave', { privilegeRoles: ['READONLY_ADMIN'] });
    const client = await connect();
    const { one } = await exchange(client, 'dave', key, Buffer.alloc(32, 7));
    expect(one).toEqual({ response_type: 'AUTH_ERR' });
  });

  it('over wss:// the bound flow succeeds with the served certificate\'s tls-server-end-point and fails with another (scram_authentication.rst "Verifying behavior")', async () => {
    const { t, connect, certDer, log } = await scramServer(true);
    const { key } = await createUserWithKey(t, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    const good = await exchange(await connect(), 'erin', key, tlsServerEndPoint(certDer!));
    expect(good.two).toMatchObject({ response_type: 'SCRAM_RESPONSE', scram_type: 'SERVER_FINAL_RESPONSE' });
    expect(good.verified).toBe(true);
    expect(log.some((l) => l.startsWith('login ok: auth.login_ex SCRAM channel-bound, user erin'))).toBe(true);
    const mismatch = await exchange(await connect(), 'erin', key, Buffer.alloc(32, 1));
    expect(mismatch.one.response_type).toBe('SCRAM_RESPONSE');
    expect(mismatch.two).toEqual({ response_type: 'AUTH_ERR' });
    // Unbound is still allowed over TLS: binding is negotiated (the rst's "negotiate" mode).
    expect((await exchange(await connect(), 'erin', key)).verified).toBe(true);
  });

  it('a wrong secret is AUTH_ERR at CLIENT_FINAL_MESSAGE (MW/plugins/auth.py:942-944); a revoked key is AUTH_ERR at CLIENT_FIRST_MESSAGE (MW/etc_files/pam_keyring.py:13-33)', async () => {
    const { t, connect } = await scramServer();
    const { key } = await createUserWithKey(t, 'frank', { privilegeRoles: ['READONLY_ADMIN'] });
    const wrong = await exchange(await connect(), 'frank', key, null, 'x'.repeat(64));
    expect(wrong.one.response_type).toBe('SCRAM_RESPONSE');
    expect(wrong.two).toEqual({ response_type: 'AUTH_ERR' });
    const id = Number(key.split('-')[0]);
    await t.call(t.admin, 'api_key.delete', id);
    expect((await exchange(await connect(), 'frank', key)).one).toEqual({ response_type: 'AUTH_ERR' });
    // Another user's name with this key id: AUTH_ERR, the same answer (no telling which part was wrong).
    expect((await exchange(await connect(), 'root', `${id}-${'y'.repeat(64)}`)).one).toEqual({
      response_type: 'AUTH_ERR',
    });
  });

  it('before any login, CLIENT_FIRST_MESSAGE tells an existing user:keyid (SCRAM_RESPONSE) from a missing user or key (AUTH_ERR), as 26 does: no made-up salt (stable/26 MW/utils/account/authenticator.py:477-489; pam_truenas fails the keyring lookup of `user:id` before its first prompt)', async () => {
    const { t, connect } = await scramServer();
    const { key } = await createUserWithKey(t, 'hank', { privilegeRoles: ['READONLY_ADMIN'] });
    const id = Number(key.split('-')[0]);
    const client = await connect();
    const ask = async (user: string, keyId: number) =>
      (await loginEx(client, first(buildClientFirst(user, keyId, newNonce(), false).rfc))).response_type;
    expect(await ask('hank', id)).toBe('SCRAM_RESPONSE');
    expect(await ask('hank', id + 1000)).toBe('AUTH_ERR');
    expect(await ask('nosuchuser', id)).toBe('AUTH_ERR');
  });

  it('CLIENT_FINAL_MESSAGE out of turn: RuntimeError on a fresh connection (login_ex_impl.py:45-46), CallError after another attempt (:476-477)', async () => {
    const { connect } = await scramServer();
    const fresh = await connect();
    const rfc = `c=biws,r=${Buffer.alloc(64).toString('base64')},p=${Buffer.alloc(64).toString('base64')}`;
    const e1 = errorOf(await fresh.call('auth.login_ex', [final(rfc)]));
    expect(e1).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 22, errname: 'EINVAL', reason: 'pam handle was not initialized' },
      traceClass: 'RuntimeError',
    });
    expect(await loginEx(fresh, first('n,,n=nobody:1,r=short'))).toEqual({ response_type: 'AUTH_ERR' });
    const e2 = errorOf(await fresh.call('auth.login_ex', [final(rfc)]));
    expect(e2).toMatchObject({
      code: -32001,
      data: { error: 14, errname: 'EFAULT', reason: '[EFAULT] SCRAM authentication is not in progress' },
      traceClass: 'CallError',
    });
  });

  it('a key whose user lacks API access: SCRAM fails as 26 builds its session from None (login_ex_impl.py:486-497); API_KEY_PLAIN is DENIED (MW/plugins/auth.py:1019-1021)', async () => {
    const { t, connect } = await scramServer();
    const { key } = await createUserWithKey(t, 'gina', { privilegeRoles: ['READONLY_ADMIN'] });
    const [priv] = await t.call<{ id: number }[]>(t.admin, 'privilege.query', [['name', '=', 'gina-privilege']]);
    await t.call(t.admin, 'privilege.delete', priv!.id);
    const client = await connect();
    const nonce = newNonce();
    const cf = buildClientFirst('gina', Number(key.split('-')[0]), nonce, false);
    const one = await loginEx(client, first(cf.rfc));
    const sf = parseServerFirst(one.rfc_str, nonce);
    const keys = keysFromSaltedPassword(await saltedPassword(key.slice(key.indexOf('-') + 1), sf.salt, sf.iterations));
    const reply = await client.call('auth.login_ex', [
      final(buildClientFinal(cf.gs2Header, null, sf.nonce, cf.bare, sf.rfc, keys).rfc),
    ]);
    expect(errorOf(reply)).toMatchObject({
      code: -32001,
      data: { error: 22, reason: "'NoneType' object is not subscriptable" },
      traceClass: 'TypeError',
    });
    expect((await client.call('auth.me')).error?.data).toMatchObject({ errname: 'ENOTAUTHENTICATED' });
    expect(await loginEx(await connect(), { mechanism: 'API_KEY_PLAIN', username: 'gina', api_key: key })).toEqual({
      response_type: 'DENIED',
    });
  });

  it("api_key.create answers 26's record with client_key; api_key.convert_raw_key gives the same SCRAM data (MW/plugins/api_key.py:206-232, 407-448)", async () => {
    realIterations();
    const { t, connect } = await scramServer();
    const { key } = await createUserWithKey(t, 'hank', { privilegeRoles: ['READONLY_ADMIN'] });
    const client = await connect();
    expect((await exchange(client, 'hank', key)).verified).toBe(true);
    const created = await t.call<Record<string, any>>(t.admin, 'api_key.create', { name: 'second', username: 'hank' });
    expect(contractViolations(apiKeyContract26['api_key.create'].result, created)).toEqual([]);
    expect(Object.keys(created)).toEqual([
      'id',
      'name',
      'username',
      'user_identifier',
      'iterations',
      'salt',
      'stored_key',
      'server_key',
      'created_at',
      'expires_at',
      'local',
      'revoked',
      'revoked_reason',
      'key',
      'client_key',
    ]);
    expect(created).not.toHaveProperty('keyhash');
    const converted = await t.call<Record<string, any>>(t.admin, 'api_key.convert_raw_key', created.key);
    expect(converted).toEqual({
      api_key_id: created.id,
      iterations: 500000,
      salt: created.salt,
      client_key: created.client_key,
      stored_key: created.stored_key,
      server_key: created.server_key,
    });
    // hank (READONLY_ADMIN: no API_KEY_WRITE) sees the Secret fields redacted (MW/main.py:982-993 at stable/26).
    const [mine] = (await client.call('api_key.query', [[['id', '=', created.id]]])).result as Record<
      string,
      unknown
    >[];
    expect(mine).toMatchObject({
      salt: '********',
      stored_key: '********',
      server_key: '********',
      iterations: 500000,
    });
    const bad = errorOf(await client.call('api_key.convert_raw_key', ['1-short']));
    expect(bad).toMatchObject({
      code: -32602,
      data: { errname: 'EINVAL', extra: [['api_key_convert_raw_key', 'Not a valid raw API key', 22]] },
    });
  });
});

describe('concurrent resets of one key under SCRAM', () => {
  // At the suite's cheaper count the six resets' hashes still run at once on libuv's pool and end
  // in an order of their own; at 500,000 rounds they ended in the order they started, so a reset
  // that wrote its plain hash apart from its SCRAM data passed (bench/HISTORY.md, fifth round).
  it("the key every login takes is the last reset's: the one a plain login accepts is the one whose SCRAM data is stored (MW/plugins/api_key.py:258-275 at stable/26 writes both in one update)", async () => {
    const { t, connect } = await scramServer();
    const { key: first } = await createUserWithKey(t, 'rita', { privilegeRoles: ['READONLY_ADMIN'] });
    const id = Number(first.split('-')[0]);
    const admin = await connect();
    expect(await admin.result('auth.login_with_api_key', [t.adminKey])).toBe(true);
    // Resets sent at once from six connections, answered in whatever order their hashing ends.
    const resetters = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const c = await connect();
        expect(await c.result('auth.login_with_api_key', [t.adminKey])).toBe(true);
        return c;
      }),
    );
    const replies = await Promise.all(resetters.map((c) => c.call('api_key.update', [id, { reset: true }])));
    const keys = replies.map((r) => (r.result as { key: string }).key);
    const plain: string[] = [];
    for (const key of keys) {
      const client = await connect();
      if ((await client.result('auth.login_with_api_key', [key])) === true) plain.push(key);
      client.ws.close();
    }
    expect(plain).toHaveLength(1);
    const stored = (await admin.result<{ stored_key: string }>('api_key.get_instance', [id])).stored_key;
    const scram: string[] = [];
    for (const key of keys)
      if ((await admin.result<{ stored_key: string }>('api_key.convert_raw_key', [key])).stored_key === stored)
        scram.push(key);
    expect(scram).toEqual(plain);
  });
});
