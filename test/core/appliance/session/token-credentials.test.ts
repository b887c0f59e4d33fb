/**
 * A token stands on the credential of the session that made it. 25.10.1 checks
 * that root credential on every use (TokenSessionManagerCredentials.is_valid, MW/auth.py:247-256,
 * run for each message by SessionManager._app_on_message, MW/plugins/auth.py:184-193), so a token
 * whose API key was deleted or expired, or whose user lost the privilege the session held, lets
 * nothing in: no upload, no login.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { server25 } from '../../../conformance/harness.js';
import { SAFETY_MS, connectWs, loggedInWs, type TestServer } from '../../../helpers/server.js';

/** A multipart `filesystem.put` of `secret` to `/mnt/tank/<name>` with a `Token` header. */
async function uploadWithToken(server: TestServer, token: string, name: string) {
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: [`/mnt/tank/${name}`, { mode: 420 }] }));
  form.append('file', new Blob(['secret']), name);
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    headers: { authorization: `Token ${token}` },
    body: form,
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  return { status: res.status, text: await res.text() };
}

const written = (server: TestServer, name: string) =>
  existsSync(join(server.testAppliance.appliance.store.mntDir, 'tank', name));

/** A FULL_ADMIN user `name` logged in with a key of their own, and two tokens of that session. */
async function adminWithTokens(server: TestServer, name: string, keyOptions: Record<string, unknown> = {}) {
  const t = server.testAppliance;
  const { userId, key: firstKey } = await createUserWithKey(t, name, { privilegeRoles: ['FULL_ADMIN'] });
  let key = firstKey;
  if (Object.keys(keyOptions).length > 0)
    key = (
      await t.call<{ key: string }>(t.admin, 'api_key.create', { name: `${name}-extra`, username: name, ...keyOptions })
    ).key;
  const session = await loggedInWs(server.rpcUrl, key);
  const forUpload = await session.result<string>('auth.generate_token', [600, {}, true, false]);
  const forLogin = await session.result<string>('auth.generate_token', [600, {}, true, false]);
  // While the credential holds, both work: the refusals below are the credential's doing.
  expect((await uploadWithToken(server, forUpload, `${name}-before.txt`)).status).toBe(200);
  return { t, userId, key, keyId: Number(key.split('-')[0]), forUpload, forLogin };
}

async function expectTokensDead(server: TestServer, forUpload: string, forLogin: string, name: string): Promise<void> {
  expect(await uploadWithToken(server, forUpload, `${name}-after.txt`)).toEqual({ status: 403, text: 'Invalid token' });
  expect(written(server, `${name}-after.txt`)).toBe(false);
  const other = await connectWs(server.rpcUrl);
  expect(await other.result('auth.login_with_token', [forLogin])).toBe(false);
  expect((await other.call('auth.me')).error?.data?.errname).toBe('ENOTAUTHENTICATED');
}

describe('a token dies with the credential of the session that made it (MW/auth.py:247-256)', () => {
  it('a token of a session whose API key was then deleted neither uploads nor logs in', async () => {
    // 25.10.1's gate: the upload authorizes filesystem.put, FULL_ADMIN only (MW/apps/file_app.py:190-200).
    const server = await server25();
    const { t, keyId, forUpload, forLogin } = await adminWithTokens(server, 'kira');
    await t.call(t.admin, 'api_key.delete', keyId);
    await expectTokensDead(server, forUpload, forLogin, 'kira');
  });

  it('a token of a session whose API key has since expired neither uploads nor logs in', async () => {
    // 25.10.1's gate: the upload authorizes filesystem.put, FULL_ADMIN only (MW/apps/file_app.py:190-200).
    const server = await server25();
    // An hour is far more than the setup takes however loaded the machine is; then Date alone is moved past it.
    const expiresAt = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const { forUpload, forLogin } = await adminWithTokens(server, 'lena', { expires_at: { $date: expiresAt } });
    vi.useFakeTimers({ toFake: ['Date'], now: expiresAt + 1000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    await expectTokensDead(server, forUpload, forLogin, 'lena');
  });

  it('a token of a session whose user then lost FULL_ADMIN neither uploads nor logs in', async () => {
    // 25.10.1's gate: the upload authorizes filesystem.put, FULL_ADMIN only (MW/apps/file_app.py:190-200).
    const server = await server25();
    const { t, forUpload, forLogin } = await adminWithTokens(server, 'milo');
    const [privilege] = await t.call<{ id: number }[]>(t.admin, 'privilege.query', [['name', '=', 'milo-privilege']]);
    await t.call(t.admin, 'privilege.update', privilege!.id, { roles: ['READONLY_ADMIN'] });
    await expectTokensDead(server, forUpload, forLogin, 'milo');
  });

  it('a token of a session whose user was then locked neither uploads nor logs in', async () => {
    // 25.10.1's gate: the upload authorizes filesystem.put, FULL_ADMIN only (MW/apps/file_app.py:190-200).
    const server = await server25();
    const { t, userId, forUpload, forLogin } = await adminWithTokens(server, 'nora');
    await t.call(t.admin, 'user.update', userId, { locked: true });
    await expectTokensDead(server, forUpload, forLogin, 'nora');
  });
});
