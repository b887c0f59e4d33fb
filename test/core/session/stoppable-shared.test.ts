/**
 * A command in the session agent calls through `stoppable(lease)` (src/core/session/interrupted.ts):
 * the wrapper must keep the lease's shared connection, so that what is asked once per connection
 * (commands/shared/target-release.ts) is shared by the commands on it, as docs/SESSIONS.md says.
 */
import { describe, expect, it } from 'vitest';
import { targetRelease } from '../../../src/commands/shared/target-release.js';
import { stoppable } from '../../../src/core/session/interrupted.js';
import type { PooledTarget } from '../../../src/core/session/opener.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';

describe('stoppable', () => {
  it("keeps the lease's shared connection: two commands on one pooled connection share its release", async () => {
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'system.version_short': { result: '25.10.1' },
    });
    const pool = new SessionPool();
    const target: PooledTarget = {
      endpoint: parseEndpoint(appliance.baseUrl),
      apiKey: '1-abcdefghijklmnopqrstuvwxyz',
      insecure: false,
    };
    const a = await pool.open(target, 10);
    const b = await pool.open(target, 10);
    const stopped = new AbortController().signal;
    const [first, second] = [stoppable(a, stopped), stoppable(b, stopped)];
    expect(await first.call('system.version_short')).toBe('25.10.1');
    expect(first.sharedConnection?.()).toBeDefined();
    expect(first.sharedConnection?.()).toBe(a.sharedConnection?.());
    expect(second.sharedConnection?.()).toBe(first.sharedConnection?.());
    expect(await targetRelease(first)).toEqual({ version: '25.10.1', release: '25.10.1', emulator: false });
    expect(targetRelease(second)).toBe(targetRelease(first));
    await pool.closeAll();
  });
});
