/**
 * The session pool against a SCRAM appliance (TrueNAS 26): once the appliance offered SCRAM, no
 * later connection of the same pooled session sends the key, whatever the next connection's server
 * claims (docs/REMOTE.md "SCRAM login (TrueNAS 26)": stor never falls back to sending the key).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import type { PooledTarget } from '../../../src/core/session/opener.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { downgradingRelay } from '../../helpers/downgrade-relay.js';
import { startTestServer } from '../../helpers/server.js';

async function scramServerBehindRelay() {
  const server = await startTestServer({ keyLogin: 'scram', release: '26.0' });
  const relay = await downgradingRelay(server.rpcUrl);
  const target: PooledTarget = {
    endpoint: parseEndpoint(relay.baseUrl),
    apiKey: server.adminKey,
    username: 'truenas_admin',
    insecure: false,
  };
  const pool = new SessionPool();
  onTestFinished(() => pool.closeAll());
  return { relay, target, pool };
}

describe('a pooled session that met SCRAM never sends the key on a later connection', () => {
  it('after the connection drops, the new login to a server that suddenly offers no SCRAM is refused and the key is not sent', async () => {
    const { relay, target, pool } = await scramServerBehindRelay();
    const first = await pool.open(target, 10);
    expect(await first.call<{ pw_name: string }>('auth.me')).toMatchObject({ pw_name: 'truenas_admin' });
    await first.close();

    relay.state.downgrade = true;
    await relay.dropAll();
    await expect(pool.open(target, 10)).rejects.toMatchObject({ code: E.SCRAM_FAILED.code });
    expect(relay.state.keysSent).toEqual([]);
  });

  it("a command's own connection (it changes connection state) is refused too when that server offers no SCRAM", async () => {
    const { relay, target, pool } = await scramServerBehindRelay();
    const lease = await pool.open(target, 10);
    expect(await lease.call<{ pw_name: string }>('auth.me')).toMatchObject({ pw_name: 'truenas_admin' });
    relay.state.downgrade = true;
    await expect(lease.call('core.set_options', [{ legacy_jobs: false }])).rejects.toMatchObject({
      code: E.SCRAM_FAILED.code,
    });
    await lease.close();
    expect(relay.state.keysSent).toEqual([]);
  });
});
