import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startThrottleProxy } from '../../helpers/throttle-proxy.js';

/*
 * Commands as the session agent runs them: the same run(line, io), with CommandSetting.sessions set to its pool.
 * The proxy counts WebSockets, one login each.
 */

describe('a command run with the session pool', () => {
  async function setup() {
    const server = await startTestServer();
    const proxy = await startThrottleProxy(server.port, 1 << 30);
    const pool = new SessionPool();
    const env = (key: string) => ({
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_URL: proxy.baseUrl,
      STOR_API_KEY: key,
    });
    return { server, proxy, pool, env };
  }

  it('opens its remote WebSocket target as a lease: commands in a row make one login', async () => {
    const { server, proxy, pool, env } = await setup();
    for (let i = 0; i < 3; i++) {
      const r = await runStor(['whoami', '--json'], { env: env(server.adminKey), sessions: pool });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).username).toBe('truenas_admin');
    }
    expect(proxy.webSockets()).toBe(1);
    const [session] = await pool.list();
    expect(session).toMatchObject({ active: 0 });
    expect(session!.calls).toBeGreaterThanOrEqual(3);
    await pool.closeAll();
  });

  it('with --rpc http keeps a direct transport: nothing is pooled', async () => {
    const { server, pool, env } = await setup();
    const r = await runStor(['--rpc', 'http', 'whoami', '--json'], { env: env(server.adminKey), sessions: pool });
    expect(r.code, r.stderr).toBe(0);
    expect(await pool.list()).toEqual([]);
  });

  it("a revoked key's next command fails with KEY_REJECTED and exit 4, as it would without the agent", async () => {
    const { server, pool, env } = await setup();
    const t = server.testAppliance;
    const { key } = await createUserWithKey(t, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    expect((await runStor(['whoami'], { env: env(key), sessions: pool })).code).toBe(0);
    const [entry] = await t.call<{ id: number }[]>(t.admin, 'api_key.query', [['name', '=', 'erin-key']]);
    await t.call(t.admin, 'api_key.delete', entry!.id);
    const r = await runStor(['whoami', '--json'], { env: env(key), sessions: pool });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr).error.code).toBe(E.KEY_REJECTED.code);
    const direct = await runStor(['whoami', '--json'], { env: env(key) });
    expect(direct.code).toBe(4);
    expect(JSON.parse(direct.stderr).error.code).toBe(E.KEY_REJECTED.code);
    await pool.closeAll();
  });
});
