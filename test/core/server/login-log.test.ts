import { describe, expect, it } from 'vitest';
import { createUserWithPassword, enableTwoFactor } from '../../helpers/appliance.js';
import { connectWs, postRpc, startTestServer, type TestServer } from '../../helpers/server.js';

/*
 * The server's log (`stor serve -v`, src/core/server/login-log.ts): one line per login, successful
 * or refused, with how, who (when known), from where and the outcome; never a credential.
 */

const PASSWORD = 'correct horse battery staple';

async function loggingServer(): Promise<{ server: TestServer; lines: string[] }> {
  const lines: string[] = [];
  const server = await startTestServer(undefined, { log: (line) => lines.push(line) });
  return { server, lines };
}

/** Nothing of a secret in the log: not the whole, not its first 6 characters. */
function expectNoSecret(lines: string[], secrets: string[]): void {
  const log = lines.join('\n');
  for (const secret of secrets) {
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice(0, 6));
  }
}

/** `POST /_upload/` with `authorization`, the parts built by hand (test/core/server/upload.test.ts builds broken ones too). */
async function upload(server: TestServer, authorization: string): Promise<number> {
  const boundary = 'stor-login-log-boundary';
  const data = JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/logged.txt', { mode: 420 }] });
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n${data}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\nbytes\r\n--${boundary}--\r\n`;
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    headers: { authorization, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    signal: AbortSignal.timeout(20_000),
  });
  await res.text();
  return res.status;
}

describe('the server logs each login, never its credential', () => {
  it('WebSocket logins by key, password and one-time code: ok, pending and refused, with the user or key id and the address', async () => {
    const { server, lines } = await loggingServer();
    const keyId = server.adminKey.split('-')[0]!;
    const wrongSecret = `${keyId}-${'w'.repeat(64)}`;
    await createUserWithPassword(server.testAppliance, 'bob', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    await createUserWithPassword(server.testAppliance, 'otto', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    await enableTwoFactor(server.testAppliance, 'otto');
    const ws = await connectWs(server.rpcUrl);

    expect((await ws.call('auth.login_with_api_key', [server.adminKey])).result).toBe(true);
    expect((await ws.call('auth.login_with_api_key', [wrongSecret])).result).toBe(false);
    expect((await ws.call('auth.login_with_api_key', ['not-a-key-at-all'])).result).toBe(false);
    const ex = (data: Record<string, unknown>) =>
      ws.call('auth.login_ex', [{ ...data, login_options: { user_info: false } }]);
    expect(
      (await ex({ mechanism: 'API_KEY_PLAIN', username: 'truenas_admin', api_key: server.adminKey })).result,
    ).toMatchObject({ response_type: 'SUCCESS' });
    expect((await ex({ mechanism: 'PASSWORD_PLAIN', username: 'bob', password: 'wrong' })).result).toEqual({
      response_type: 'AUTH_ERR',
    });
    expect((await ex({ mechanism: 'PASSWORD_PLAIN', username: 'bob', password: PASSWORD })).result).toMatchObject({
      response_type: 'SUCCESS',
    });
    expect((await ex({ mechanism: 'PASSWORD_PLAIN', username: 'otto', password: PASSWORD })).result).toMatchObject({
      response_type: 'OTP_REQUIRED',
    });
    expect((await ws.call('auth.login', ['nobody', 'guess', null])).result).toBe(false);
    // A validation error may quote what was sent: only its JSON-RPC message is logged.
    expect(
      (
        await ex({
          mechanism: 'API_KEY_PLAIN',
          username: 'truenas_admin',
          api_key: server.adminKey,
          extra: server.adminKey,
        })
      ).error?.code,
    ).toBe(-32602);
    // A control character in a user name cannot forge a second line.
    expect(
      (await ex({ mechanism: 'PASSWORD_PLAIN', username: 'eve\nlogin ok: forged', password: 'x' })).result,
    ).toEqual({ response_type: 'AUTH_ERR' });

    expect(lines).toEqual([
      `login ok: auth.login_with_api_key, user truenas_admin, key id ${keyId}, from 127.0.0.1`,
      `login refused: auth.login_with_api_key, key id ${keyId}, from 127.0.0.1: AUTH_ERR`,
      'login refused: auth.login_with_api_key, from 127.0.0.1: AUTH_ERR',
      `login ok: auth.login_ex API_KEY_PLAIN, user truenas_admin, key id ${keyId}, from 127.0.0.1`,
      'login refused: auth.login_ex PASSWORD_PLAIN, user bob, from 127.0.0.1: AUTH_ERR',
      'login ok: auth.login_ex PASSWORD_PLAIN, user bob, from 127.0.0.1',
      'login pending: auth.login_ex PASSWORD_PLAIN, user otto, from 127.0.0.1: OTP_REQUIRED',
      'login refused: auth.login password, user nobody, from 127.0.0.1: AUTH_ERR',
      `login refused: auth.login_ex API_KEY_PLAIN, user truenas_admin, key id ${keyId}, from 127.0.0.1: Invalid params`,
      'login refused: auth.login_ex PASSWORD_PLAIN, user eve\\x0alogin ok: forged, from 127.0.0.1: AUTH_ERR',
    ]);
    expectNoSecret(lines, [
      server.adminKey.slice(keyId.length + 1),
      wrongSecret.slice(keyId.length + 1),
      PASSWORD,
      'guess',
      'not-a-key-at-all',
    ]);
  });

  it('bearer requests and uploads: one line per credential checked; a token is never logged', async () => {
    const { server, lines } = await loggingServer();
    const keyId = server.adminKey.split('-')[0]!;
    const secret = server.adminKey.slice(keyId.length + 1);
    expect(
      (await postRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] }, { key: server.adminKey }))
        .status,
    ).toBe(200);
    expect(
      (await postRpc(server.url, { jsonrpc: '2.0', id: 2, method: 'core.ping', params: [] }, { key: `${keyId}-nope` }))
        .status,
    ).toBe(200);
    expect(await upload(server, `Bearer ${server.adminKey}`)).toBe(200);
    expect(await upload(server, `Basic ${Buffer.from(`truenas_admin:${PASSWORD}`).toString('base64')}`)).toBe(401);
    const ws = await connectWs(server.rpcUrl);
    expect((await ws.call('auth.login_with_api_key', [server.adminKey])).result).toBe(true);
    const token = (await ws.call('auth.generate_token', [600, {}, false, true])).result as string;
    expect(await upload(server, `Token ${token}`)).toBe(200);
    expect(await upload(server, `Token ${token}`)).toBe(403);

    expect(lines).toEqual([
      `login ok: POST /api/current bearer key, user truenas_admin, key id ${keyId}, from 127.0.0.1`,
      `login refused: POST /api/current bearer key, key id ${keyId}, from 127.0.0.1: AUTH_ERR`,
      `login ok: /_upload/ bearer key, user truenas_admin, key id ${keyId}, from 127.0.0.1`,
      'login refused: /_upload/ password, user truenas_admin, from 127.0.0.1: 401 Bad username or password',
      `login ok: auth.login_with_api_key, user truenas_admin, key id ${keyId}, from 127.0.0.1`,
      'login ok: /_upload/ token, user truenas_admin, from 127.0.0.1',
      'login refused: /_upload/ token, from 127.0.0.1: 403 Invalid token',
    ]);
    expectNoSecret(lines, [secret, PASSWORD, token]);
  });

  it('a login refused by the rate limit is logged with the reason the client gets', async () => {
    const { server, lines } = await loggingServer();
    const ws = await connectWs(server.rpcUrl);
    const unknown = `999-${'u'.repeat(64)}`;
    for (let i = 0; i < 20; i++) expect((await ws.call('auth.login_with_api_key', [unknown])).result).toBe(false);
    expect((await ws.call('auth.login_with_api_key', [unknown])).error?.data).toMatchObject({
      reason: '[EBUSY] Rate Limit Exceeded',
    });
    expect(lines).toHaveLength(21);
    expect(
      lines
        .slice(0, 20)
        .every((l) => l === 'login refused: auth.login_with_api_key, key id 999, from 127.0.0.1: AUTH_ERR'),
    ).toBe(true);
    expect(lines[20]).toBe(
      'login refused: auth.login_with_api_key, key id 999, from 127.0.0.1: [EBUSY] Rate Limit Exceeded',
    );
    expectNoSecret(lines, ['u'.repeat(64)]);
  });
});
