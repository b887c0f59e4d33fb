/**
 * The key `login --username` made, from login to logout: logout revokes it (naming its user on a
 * SCRAM appliance), never says it revoked a key that still logs in, and a second login says the
 * earlier key lives on. Each test failed before its fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { ALICE_PASSWORD as PASSWORD, openTestAppliance, stateWithAlice } from '../../helpers/appliance.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

describe("logout against a TrueNAS 26 appliance (SCRAM names the key's user)", () => {
  it("revokes the key `login --username` created: the profile's user goes with its key, no STOR_USER needed", async () => {
    const server = await spawnServe(await stateWithAlice(), ['--emulate', 'truenas-26.0']);
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
      { env, stdin: `${PASSWORD}\n` },
    );
    expect(login.code, login.stderr).toBe(0);
    const keyName = JSON.parse(login.stdout).api_key_name as string;
    // The appliance offered SCRAM: the profile pins it (see the downgrade test below).
    expect(
      Object.values(JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles)[0],
    ).toMatchObject({ username: 'alice', scram: true });
    // The profile's key logs in with SCRAM (the profile keeps the user).
    expect((await spawnStor(['whoami', '--json'], { env })).code).toBe(0);

    const out = await spawnStor(['logout', '--yes', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      removed: true,
      key: { created_by_stor: true, name: keyName, revoked: true },
    });
    const t = await openTestAppliance(undefined, server.stateDir);
    expect(
      (await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', 'alice']])).map((k) => k.name),
    ).toEqual([]);
  });
});

describe('a login that replaces the key `login --username` made says that key lives on', () => {
  it('logging in again as alice into the same profile names the earlier key, still valid on the appliance', async () => {
    const server = await spawnServe(await stateWithAlice());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = (...json: string[]) =>
      spawnStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', ...json], {
        env,
        stdin: `${PASSWORD}\n`,
      });
    const first = await login('--json');
    expect(first.code, first.stderr).toBe(0);
    const firstKey = JSON.parse(first.stdout).api_key_name as string;
    const second = await login();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`API key "${firstKey}"`);
    expect(second.stderr).toContain('stays valid');
    const t = await openTestAppliance(undefined, server.stateDir);
    expect(
      (await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', 'alice']])).map((k) => k.name),
    ).toContain(firstKey);
  });
});

describe('logout never says it revoked a key that still logs in', () => {
  it('the key stor made was renamed on the appliance since login: not deleted, and reported as still valid (revoked false)', async () => {
    const server = await spawnServe(await stateWithAlice());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
      { env, stdin: `${PASSWORD}\n` },
    );
    expect(login.code, login.stderr).toBe(0);
    const made = JSON.parse(login.stdout).api_key_name as string;
    const t = await openTestAppliance(undefined, server.stateDir);
    const id = (await t.call<{ id: number; name: string }[]>(t.admin, 'api_key.query', [['name', '=', made]]))[0]!.id;
    await t.call(t.admin, 'api_key.update', id, { name: 'adopted-by-backup' });

    const out = await spawnStor(['logout', '--yes', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).key).toMatchObject({ created_by_stor: true, id, revoked: false });
    expect((await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['id', '=', id]])).map((k) => k.name)).toEqual([
      'adopted-by-backup',
    ]);
  });
});
