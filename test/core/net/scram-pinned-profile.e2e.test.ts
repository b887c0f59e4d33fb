/**
 * A profile saved against a SCRAM appliance is pinned to SCRAM: no later command sends its key
 * itself, whatever a man in the middle offers. Each test failed before its fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { downgradingRelay } from '../../helpers/downgrade-relay.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

describe('a profile saved against a SCRAM appliance never sends its key itself, in any later command', () => {
  it('a later command whose server suddenly offers no SCRAM (a man in the middle) is refused, exit 4, and gets no key', async () => {
    const server = await spawnServe(tempDir(), ['--emulate', 'truenas-26.0']);
    const relay = await downgradingRelay(server.rpcUrl);
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const key = readFileSync(server.adminKeyFile, 'utf8');
    const login = await spawnStor(['login', '--url', relay.baseUrl, '--api-key-stdin', '--json'], {
      env: { ...env, STOR_USER: 'truenas_admin' },
      stdin: key,
    });
    expect(login.code, login.stderr).toBe(0);
    const profile = Object.values(
      JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles,
    )[0];
    expect(profile).toMatchObject({ username: 'truenas_admin', scram: true });
    expect((await spawnStor(['whoami', '--json'], { env })).code).toBe(0);

    relay.state.downgrade = true;
    const run = await spawnStor(['whoami', '--json'], { env });
    expect(run.code, run.stderr).toBe(4);
    expect(JSON.parse(run.stderr).error.code).toBe('SCRAM_FAILED');
    // Nor STOR_API_KEY's key to the same appliance: the pin is the appliance's.
    const other = await spawnStor(['whoami', '--json'], {
      env: { ...env, STOR_URL: relay.baseUrl, STOR_API_KEY: key.trim(), STOR_USER: 'truenas_admin' },
    });
    expect(other.code, other.stderr).toBe(4);
    expect(relay.state.keysSent).toEqual([]);
  });

  it('a profile saved against a plain (25.10.1) appliance is not pinned: its key goes as before', async () => {
    const server = await spawnServe(tempDir());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin'], {
      env,
      stdin: readFileSync(server.adminKeyFile, 'utf8'),
    });
    expect(login.code, login.stderr).toBe(0);
    expect(
      Object.values(JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles)[0],
    ).not.toHaveProperty('scram');
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
  });
});
