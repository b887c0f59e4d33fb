/**
 * Hostile-review findings, fourth round (issues 22, 24, 25): each test failed before its fix.
 */
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { createUserWithPassword, openTestAppliance } from '../helpers/appliance.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSWORD = 'Tr0ub4dor&3 horse';

async function stateWithAlice(): Promise<string> {
  const stateDir = tempDir();
  const t = await openTestAppliance(undefined, stateDir);
  await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
  t.appliance.close();
  return stateDir;
}

describe('logout against a TrueNAS 26 appliance (SCRAM names the key\'s user)', () => {
  it('revokes the key `login --username` created: the profile\'s user goes with its key, no STOR_USER needed', async () => {
    const server = await spawnServe(await stateWithAlice(), ['--emulate', 'truenas-26.0']);
    const env = { ...clientEnv(), STOR_SESSION: 'off' };
    const login = await spawnStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'], { env, stdin: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    const keyName = JSON.parse(login.stdout).api_key_name as string;
    // The profile's key logs in with SCRAM (the profile keeps the user).
    expect((await spawnStor(['whoami', '--json'], { env })).code).toBe(0);

    const out = await spawnStor(['logout', '--yes', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ removed: true, key: { created_by_stor: true, name: keyName, revoked: true } });
    const t = await openTestAppliance(undefined, server.stateDir);
    expect((await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', 'alice']])).map((k) => k.name)).toEqual([]);
  });
});
