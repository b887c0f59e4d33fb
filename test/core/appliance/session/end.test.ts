import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createUserWithKey, createUserWithPassword } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs, startTestServer, type TestServer, type WsClient } from '../../../helpers/server.js';

const NOT_AUTHENTICATED = {
  code: -32001,
  data: { errname: 'ENOTAUTHENTICATED', reason: '[ENOTAUTHENTICATED] Not authenticated' },
};

/** bob (READONLY_ADMIN, own group and privilege) logged in with his key on a WebSocket. */
async function bobSession(server: TestServer, keyOptions: Record<string, unknown> = {}) {
  const t = server.testAppliance;
  const bob = await createUserWithKey(t, 'bob', { privilegeRoles: ['READONLY_ADMIN'] });
  let key = bob.key;
  if (Object.keys(keyOptions).length > 0)
    key = (
      await t.call<{ key: string }>(t.admin, 'api_key.create', { name: 'bob-extra', username: 'bob', ...keyOptions })
    ).key;
  const client = await loggedInWs(server.rpcUrl, key);
  expect(await client.result('auth.me')).toMatchObject({ pw_name: 'bob' });
  return { ...bob, key, client };
}

async function expectLoggedOut(client: WsClient): Promise<void> {
  const reply = await client.call('auth.me');
  expect(reply.error).toMatchObject(NOT_AUTHENTICATED);
  // And it stays so: nothing the session held comes back.
  expect((await client.call('pool.dataset.query')).error).toMatchObject(NOT_AUTHENTICATED);
}

const keyIdOf = (key: string) => Number(key.split('-')[0]);

describe('a session ends when what let it in goes away', () => {
  it('acceptance: after api_key.delete the open session`s next call fails, it creates nothing, and its subscriptions end', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    // A second key of the administrator: that session hears every job, as the administrator does.
    const { id, key } = await t.call<{ id: number; key: string }>(t.admin, 'api_key.create', {
      name: 'doomed',
      username: 'truenas_admin',
    });
    const client = await loggedInWs(server.rpcUrl, key);
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.subscribe', ['core.get_jobs']);
    await admin.result('core.subscribe', ['core.get_jobs']);
    const jobEvent = (job: number) => (m: Record<string, any>) =>
      m.method === 'collection_update' && m.params?.id === job;
    const before = await admin.result<number>('core.job_wait', [999]);
    await client.waitFor(jobEvent(before), 'the job event before the key was deleted');

    expect(await admin.result('api_key.delete', [id])).toBe(true);
    await expectLoggedOut(client);
    // What the revoked session did in the attack: neither happens now.
    expect((await client.call('pool.dataset.create', [{ name: 'tank/by-revoked-key' }])).error).toMatchObject(
      NOT_AUTHENTICATED,
    );
    expect(
      (await client.call('api_key.create', [{ name: 'self-made', username: 'truenas_admin' }])).error,
    ).toMatchObject(NOT_AUTHENTICATED);
    const after = await admin.result<number>('core.job_wait', [998]);
    await admin.waitFor(jobEvent(after), 'the job event after the key was deleted');
    // The administrator heard it; the revoked session's subscription is gone, so it heard nothing.
    await admin.result('core.ping');
    expect(client.messages.filter(jobEvent(after))).toEqual([]);
    const names = (await admin.result<{ name: string }[]>('api_key.query')).map((k) => k.name);
    expect(names).not.toContain('self-made');
  });

  it('api_key.update with reset ends the session of the old secret', async () => {
    const server = await startTestServer();
    const { key, client } = await bobSession(server);
    const t = server.testAppliance;
    await t.call(t.admin, 'api_key.update', keyIdOf(key), { reset: true });
    await expectLoggedOut(client);
  });

  it('an expired key ends its session', async () => {
    const server = await startTestServer();
    // An hour is far more than logging in takes however loaded the machine is; then the clock
    // (Date only: timers and the thread pool stay real) is moved past the expiry instead of waited for.
    const expiresAt = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const { client } = await bobSession(server, { expires_at: { $date: expiresAt } });
    vi.useFakeTimers({ toFake: ['Date'], now: expiresAt + 1000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    await expectLoggedOut(client);
  });

  it('a deleted user ends the session', async () => {
    const server = await startTestServer();
    const { userId, client } = await bobSession(server);
    const t = server.testAppliance;
    await t.call(t.admin, 'user.delete', userId);
    await expectLoggedOut(client);
  });

  it('a locked user ends the session', async () => {
    const server = await startTestServer();
    const { userId, client } = await bobSession(server);
    const t = server.testAppliance;
    await t.call(t.admin, 'user.update', userId, { locked: true });
    await expectLoggedOut(client);
  });

  it("a password session ends when the user's password login is disabled; a key session of the same user lives on", async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    const { userId } = await createUserWithPassword(t, 'carol', 'correct horse battery', {
      privilegeRoles: ['READONLY_ADMIN'],
    });
    const { key } = await t.call<{ key: string }>(t.admin, 'api_key.create', { name: 'carol-key', username: 'carol' });
    const byPassword = await connectWs(server.rpcUrl);
    expect(await byPassword.result('auth.login', ['carol', 'correct horse battery'])).toBe(true);
    const byKey = await loggedInWs(server.rpcUrl, key);
    await t.call(t.admin, 'user.update', userId, { password_disabled: true });
    await expectLoggedOut(byPassword);
    expect(await byKey.result('auth.me')).toMatchObject({ pw_name: 'carol' });
  });

  it('a removed privilege ends the session; an unrelated change does not', async () => {
    const server = await startTestServer();
    const { client } = await bobSession(server);
    const t = server.testAppliance;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/unrelated' });
    expect(await client.result('auth.me')).toMatchObject({ pw_name: 'bob' });
    const [privilege] = await t.call<{ id: number }[]>(t.admin, 'privilege.query', [['name', '=', 'bob-privilege']]);
    await t.call(t.admin, 'privilege.delete', privilege!.id);
    await expectLoggedOut(client);
  });

  it('ends a session older than the maximum age (AAL1: 30 days; shortened here)', async () => {
    const server = await startTestServer();
    expect(server.appliance.maxSessionAgeMs).toBe(30 * 24 * 60 * 60 * 1000);
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    server.appliance.maxSessionAgeMs = 60_000;
    expect(await client.result('core.ping')).toBe('pong');
    expect(await client.result('auth.me')).toMatchObject({ pw_name: 'truenas_admin' });
    server.appliance.maxSessionAgeMs = 0;
    await expectLoggedOut(client);
    // A fresh login is a fresh session.
    server.appliance.maxSessionAgeMs = 60_000;
    expect(await client.result('auth.login_with_api_key', [server.adminKey])).toBe(true);
    expect(await client.result('auth.me')).toMatchObject({ pw_name: 'truenas_admin' });
  });
});
