import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { StorError } from '../../../src/core/errors.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import type { PooledTarget } from '../../../src/core/session/opener.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { SAFETY_MS, startTestServer, type TestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startThrottleProxy } from '../../helpers/throttle-proxy.js';

/** Fast enough never to slow anything down: the proxy is here to count WebSockets (one login each). */
const UNTHROTTLED = 1 << 30;

async function poolFor(server: TestServer) {
  const proxy = await startThrottleProxy(server.port, UNTHROTTLED);
  const pool = new SessionPool();
  const target = (apiKey: string): PooledTarget => ({
    endpoint: parseEndpoint(proxy.baseUrl),
    apiKey,
    insecure: false,
  });
  return { proxy, pool, target };
}

/**
 * Bounded wait for a condition the server brings about (a connection it closes): by SAFETY_MS, not a
 * count of looks, since on a loaded machine it can take longer than 10 s.
 */
async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (const deadline = Date.now() + SAFETY_MS; Date.now() < deadline;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  if (await check()) return;
  throw new Error(`timed out waiting until ${what}`);
}

/** A TCP proxy whose connections so far can be made to drop every byte, both ways, while staying open. */
async function freezingProxy(port: number): Promise<{ baseUrl: string; freeze(): void; connections(): number }> {
  const open: Socket[] = [];
  let frozen = new Set<Socket>();
  let count = 0;
  const server = createServer((client) => {
    count++;
    const upstream = connect(port, '127.0.0.1');
    open.push(client, upstream);
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.on('data', (d) => !frozen.has(client) && upstream.write(d));
    upstream.on('data', (d) => !frozen.has(client) && client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    baseUrl: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    freeze: () => (frozen = new Set(open)),
    connections: () => count,
  };
}

describe('session pool', () => {
  it('two leases opened at once share one connection and one login', async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const [a, b] = await Promise.all([pool.open(target(server.adminKey), 10), pool.open(target(server.adminKey), 10)]);
    const [meA, meB] = await Promise.all([
      a.call<{ pw_name: string }>('auth.me'),
      b.call<{ pw_name: string }>('auth.me'),
    ]);
    expect(meA.pw_name).toBe('truenas_admin');
    expect(meB.pw_name).toBe('truenas_admin');
    await a.close();
    // Closing one lease leaves the connection to the other.
    expect(await b.call('core.ping')).toBe('pong');
    await b.close();
    const c = await pool.open(target(server.adminKey), 10);
    expect(await c.call('core.ping')).toBe('pong');
    expect(proxy.webSockets()).toBe(1);
    const [info] = await pool.list();
    expect(info).toMatchObject({
      target: parseEndpoint(proxy.baseUrl).display,
      user: 'truenas_admin',
      calls: 4,
      active: 1,
      connected: true,
    });
    await c.close();
    await pool.closeAll();
  });

  it('another key gets a connection of its own', async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const { key } = await createUserWithKey(server.testAppliance, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    const admin = await pool.open(target(server.adminKey), 10);
    const erin = await pool.open(target(key), 10);
    expect((await erin.call<{ pw_name: string }>('auth.me')).pw_name).toBe('erin');
    expect((await admin.call<{ pw_name: string }>('auth.me')).pw_name).toBe('truenas_admin');
    expect(proxy.webSockets()).toBe(2);
    await pool.closeAll();
  });

  it("a revoked key's next call through the pool fails with KEY_REJECTED after one more login", async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const t = server.testAppliance;
    const { key } = await createUserWithKey(t, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    const lease = await pool.open(target(key), 10);
    expect((await lease.call<{ pw_name: string }>('auth.me')).pw_name).toBe('erin');
    const [entry] = await t.call<{ id: number }[]>(t.admin, 'api_key.query', [['name', '=', 'erin-key']]);
    await t.call(t.admin, 'api_key.delete', entry!.id);
    const err = await lease.call('auth.me').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorError);
    expect((err as StorError).code).toBe(E.KEY_REJECTED.code);
    expect(proxy.webSockets()).toBe(2);
    // A new command with that key fails at its login too, and the pool keeps no session for it.
    const again = await pool.open(target(key), 10).catch((e: unknown) => e);
    expect((again as StorError).code).toBe(E.KEY_REJECTED.code);
    await lease.close();
    await pool.closeAll();
  });

  it('a session whose key was revoked leaves the pool when its command ends: no key kept, nothing listed, the next command logs in anew', async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const t = server.testAppliance;
    const { key } = await createUserWithKey(t, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    const warm = await pool.open(target(key), 10);
    await warm.call('auth.me');
    await warm.close();
    const other = await pool.open(target(server.adminKey), 10);
    const [entry] = await t.call<{ id: number }[]>(t.admin, 'api_key.query', [['name', '=', 'erin-key']]);
    await t.call(t.admin, 'api_key.delete', entry!.id);
    const lease = await pool.open(target(key), 10);
    expect(((await lease.call('auth.me').catch((e: unknown) => e)) as StorError).code).toBe(E.KEY_REJECTED.code);
    // Held by its command, the session stays (listed as not connected); once it ends, the pool forgets it.
    expect(await pool.list()).toEqual([
      expect.objectContaining({ connected: false, active: 1 }),
      expect.objectContaining({ user: 'truenas_admin', active: 1 }),
    ]);
    await lease.close();
    expect(await pool.list()).toEqual([expect.objectContaining({ user: 'truenas_admin', connected: true, active: 1 })]);
    // The other key's session was left alone throughout.
    expect(await other.call('core.ping')).toBe('pong');
    await other.close();
    const sockets = proxy.webSockets();
    const again = await pool.open(target(key), 10).catch((e: unknown) => e);
    expect((again as StorError).code).toBe(E.KEY_REJECTED.code);
    expect(proxy.webSockets()).toBe(sockets + 1);
    expect(await pool.list()).toHaveLength(1);
    await pool.closeAll();
  });

  it('a lease that logs in as someone else does so on a connection of its own: the shared one keeps its identity', async () => {
    const server = await startTestServer();
    const { pool, target } = await poolFor(server);
    const { key } = await createUserWithKey(server.testAppliance, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    const a = await pool.open(target(server.adminKey), 10);
    const b = await pool.open(target(server.adminKey), 10);
    expect(await a.call('auth.login_with_api_key', [key])).toBe(true);
    expect((await a.call<{ pw_name: string }>('auth.me')).pw_name).toBe('erin');
    expect((await b.call<{ pw_name: string }>('auth.me')).pw_name).toBe('truenas_admin');
    await a.close();
    const c = await pool.open(target(server.adminKey), 10);
    expect((await c.call<{ pw_name: string }>('auth.me')).pw_name).toBe('truenas_admin');
    await pool.closeAll();
  });

  it('a call refused for another reason is not retried', async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const lease = await pool.open(target(server.adminKey), 10);
    await expect(lease.call('no.such_method')).rejects.toMatchObject({ code: -32601 });
    expect(proxy.webSockets()).toBe(1);
    await pool.closeAll();
  });

  it('a connection the server closed is replaced with one login on next use', async () => {
    const server = await startTestServer(undefined, { limits: { idleTimeoutMs: 300 } });
    const { proxy, pool, target } = await poolFor(server);
    const first = await pool.open(target(server.adminKey), 10);
    expect(await first.call('core.ping')).toBe('pong');
    await first.close();
    // The server closes a logged-in WebSocket on which nothing moved for idleTimeoutMs.
    await until('the server closed the idle connection', async () => (await pool.list())[0]?.connected === false);
    const second = await pool.open(target(server.adminKey), 10);
    expect(await second.call('core.ping')).toBe('pong');
    expect(proxy.webSockets()).toBe(2);
    await pool.closeAll();
  });

  it('a connection whose keepalive pong does not come back is ended, and replaced with one login on next use', async () => {
    const server = await startTestServer();
    const proxy = await freezingProxy(server.port);
    const pool = new SessionPool();
    const target: PooledTarget = {
      endpoint: parseEndpoint(proxy.baseUrl),
      apiKey: server.adminKey,
      insecure: false,
      keepaliveSeconds: 1,
    };
    const first = await pool.open(target, 10);
    expect(await first.call('core.ping')).toBe('pong');
    await first.close();
    // The link goes silent both ways, the socket staying open: only the missing pong tells.
    proxy.freeze();
    await until('the silent connection was given up', async () => (await pool.list())[0]?.connected === false);
    const second = await pool.open(target, 10);
    expect(await second.call('core.ping')).toBe('pong');
    expect(proxy.connections()).toBe(2);
    await pool.closeAll();
  });

  it('close drops only the sessions of that URL and key hash', async () => {
    const server = await startTestServer();
    const { pool, target } = await poolFor(server);
    const { keySha256 } = await import('../../../src/core/session/key-hash.js');
    const lease = await pool.open(target(server.adminKey), 10);
    const url = parseEndpoint(lease.target.kind === 'remote' ? lease.target.url : '').display;
    expect(await pool.close(url, keySha256('another key'))).toBe(0);
    expect(await pool.close(url, keySha256(server.adminKey))).toBe(1);
    expect(await pool.list()).toEqual([]);
    await expect(lease.call('core.ping')).rejects.toMatchObject({ code: E.CONNECTION_CLOSED.code });
  });

  it('an upload through a lease goes with a single-use token: no login, and the key never reaches /_upload/', async () => {
    const server = await startTestServer();
    const { proxy, pool, target } = await poolFor(server);
    const dir = tempDir();
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'hello');
    const lease = await pool.open(target(server.adminKey), 10);
    await lease.upload({ file, size: 5, path: '/mnt/tank/a.txt', options: {} });
    await lease.upload({ file, size: 5, path: '/mnt/tank/b.txt', options: {} });
    const stat = await lease.call<{ size: number }>('filesystem.stat', ['/mnt/tank/b.txt']);
    expect(stat.size).toBe(5);
    expect(proxy.webSockets()).toBe(1);
    expect(proxy.uploadSchemes()).toEqual(['Token', 'Token']);
    await pool.closeAll();
  });

  it('a pooled connection asks privilege.roles, system.version_short and stor.emulation once; a failed answer is asked again; other reads every time', async () => {
    // MW/plugins/account_/privilege_roles.py:31-41: the answer is ROLES, a module constant of the running middleware.
    let rolesAsked = 0;
    const roles = [{ name: 'READONLY_ADMIN', title: 'READONLY_ADMIN', includes: [], builtin: false, stig: 1 }];
    const appliance = await startStandinAppliance({
      'auth.login_ex': {
        result: { response_type: 'SUCCESS', user_info: { pw_name: 'root' }, authenticator: 'LEVEL_1' },
      },
      'auth.login_with_api_key': { result: true },
      'core.ping': { result: 'pong' },
      'system.version_short': { result: '25.10.1' },
      'stor.emulation': { result: { emulator: 'stor' } },
      'privilege.roles': () => (++rolesAsked === 1 ? { error: { code: -32000, message: 'busy' } } : { result: roles }),
    });
    const pool = new SessionPool();
    const target: PooledTarget = {
      endpoint: parseEndpoint(appliance.baseUrl),
      apiKey: '1-abcdefghijklmnopqrstuvwxyz',
      insecure: false,
    };
    const a = await pool.open(target, 10);
    await expect(a.call('privilege.roles', [[], {}])).rejects.toThrow(/busy/);
    const first = await a.call<typeof roles>('privilege.roles', [[], {}]);
    const b = await pool.open(target, 10);
    const second = await b.call<typeof roles>('privilege.roles', [[], {}]);
    expect(second).toEqual(roles);
    // Each command gets its own copy: one that changes its answer changes no other command's.
    expect(second).not.toBe(first);
    first[0]!.name = 'CHANGED_BY_A';
    second.push({ ...roles[0]!, name: 'ADDED_BY_B' });
    // Later copies (made from the remembered answer, not from a command's copy) are as answered.
    expect(await a.call('privilege.roles', [[], {}])).toEqual(roles);
    expect(await b.call('privilege.roles', [[], {}])).toEqual(roles);
    await b.call('privilege.roles', [[['name', '=', 'READONLY_ADMIN']], {}]);
    for (const lease of [a, b, a]) {
      expect(await lease.call('system.version_short')).toBe('25.10.1');
      const emulation = await lease.call<{ emulator: string; added?: number[] }>('stor.emulation');
      expect(emulation).toEqual({ emulator: 'stor' });
      emulation.emulator = 'changed';
      emulation.added = [1];
      expect(await lease.call('core.ping')).toBe('pong');
    }
    const count = (m: string) => appliance.calls.filter((c) => c === m).length;
    // Once failed, once answered, once with other params.
    expect(count('privilege.roles')).toBe(3);
    expect(count('system.version_short')).toBe(1);
    expect(count('stor.emulation')).toBe(1);
    expect(count('core.ping')).toBe(3);
    await pool.closeAll();
  });
});
