/**
 * Hostile-review findings, fourth round (issues 22, 24, 25): each test failed before its fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { createUserWithPassword, openTestAppliance } from '../helpers/appliance.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downgradingRelay } from '../helpers/downgrade-relay.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

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
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'], { env, stdin: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    const keyName = JSON.parse(login.stdout).api_key_name as string;
    // The appliance offered SCRAM: the profile pins it (see the downgrade test below).
    expect(Object.values(JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles)[0]).toMatchObject({ username: 'alice', scram: true });
    // The profile's key logs in with SCRAM (the profile keeps the user).
    expect((await spawnStor(['whoami', '--json'], { env })).code).toBe(0);

    const out = await spawnStor(['logout', '--yes', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ removed: true, key: { created_by_stor: true, name: keyName, revoked: true } });
    const t = await openTestAppliance(undefined, server.stateDir);
    expect((await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', 'alice']])).map((k) => k.name)).toEqual([]);
  });
});

describe('a profile saved against a SCRAM appliance never sends its key itself, in any later command', () => {
  it('a later command whose server suddenly offers no SCRAM (a man in the middle) is refused, exit 4, and gets no key', async () => {
    const server = await spawnServe(tempDir(), ['--emulate', 'truenas-26.0']);
    const relay = await downgradingRelay(server.rpcUrl);
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const key = readFileSync(server.adminKeyFile, 'utf8');
    const login = await spawnStor(['login', '--url', relay.baseUrl, '--api-key-stdin', '--json'], { env: { ...env, STOR_USER: 'truenas_admin' }, stdin: key });
    expect(login.code, login.stderr).toBe(0);
    const profile = Object.values(JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles)[0];
    expect(profile).toMatchObject({ username: 'truenas_admin', scram: true });
    expect((await spawnStor(['whoami', '--json'], { env })).code).toBe(0);

    relay.state.downgrade = true;
    const run = await spawnStor(['whoami', '--json'], { env });
    expect(run.code, run.stderr).toBe(4);
    expect(JSON.parse(run.stderr).error.code).toBe('SCRAM_FAILED');
    // Nor STOR_API_KEY's key to the same appliance: the pin is the appliance's.
    const other = await spawnStor(['whoami', '--json'], { env: { ...env, STOR_URL: relay.baseUrl, STOR_API_KEY: key.trim(), STOR_USER: 'truenas_admin' } });
    expect(other.code, other.stderr).toBe(4);
    expect(relay.state.keysSent).toEqual([]);
  });

  it('a profile saved against a plain (25.10.1) appliance is not pinned: its key goes as before', async () => {
    const server = await spawnServe(tempDir());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin'], { env, stdin: readFileSync(server.adminKeyFile, 'utf8') });
    expect(login.code, login.stderr).toBe(0);
    expect(Object.values(JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles)[0]).not.toHaveProperty('scram');
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
  });
});

describe('a login that replaces the key `login --username` made says that key lives on (issue 25 §9)', () => {
  it('logging in again as alice into the same profile names the earlier key, still valid on the appliance', async () => {
    const server = await spawnServe(await stateWithAlice());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = (...json: string[]) => spawnStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', ...json], { env, stdin: `${PASSWORD}\n` });
    const first = await login('--json');
    expect(first.code, first.stderr).toBe(0);
    const firstKey = JSON.parse(first.stdout).api_key_name as string;
    const second = await login();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`API key "${firstKey}"`);
    expect(second.stderr).toContain('stays valid');
    const t = await openTestAppliance(undefined, server.stateDir);
    expect((await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', 'alice']])).map((k) => k.name)).toContain(firstKey);
  });
});

describe('stor call --targets with a method name that is an Object.prototype property', () => {
  it('toString, constructor, __proto__: refused as methods stor cannot tell (BAD_TARGETS, exit 2), not an internal error', async () => {
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const run = await spawnStor(['--targets', 'a,b', 'call', method, '--json'], { env });
      expect([method, run.code, JSON.parse(run.stderr).error.code]).toEqual([method, 2, 'BAD_TARGETS']);
    }
  });
});

describe('logout never says it revoked a key that still logs in', () => {
  it('the key stor made was renamed on the appliance since login: not deleted, and reported as still valid (revoked false)', async () => {
    const server = await spawnServe(await stateWithAlice());
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const login = await spawnStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'], { env, stdin: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    const made = JSON.parse(login.stdout).api_key_name as string;
    const t = await openTestAppliance(undefined, server.stateDir);
    const id = (await t.call<{ id: number; name: string }[]>(t.admin, 'api_key.query', [['name', '=', made]]))[0]!.id;
    await t.call(t.admin, 'api_key.update', id, { name: 'adopted-by-backup' });

    const out = await spawnStor(['logout', '--yes', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).key).toMatchObject({ created_by_stor: true, id, revoked: false });
    expect((await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['id', '=', id]])).map((k) => k.name)).toEqual(['adopted-by-backup']);
  });
});

describe('--targets: each target logs in as its own profile\'s key user, whatever STOR_USER says', () => {
  it('STOR_USER set for other work does not name the user of every target\'s key (SCRAM on 26 would refuse all but one)', async () => {
    const server = await spawnServe(await stateWithAlice(), ['--emulate', 'truenas-26.0']);
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const alice = await spawnStor(['login', '--url', server.baseUrl, '--profile', 'as-alice', '--username', 'alice', '--password-stdin'], { env, stdin: `${PASSWORD}\n` });
    expect(alice.code, alice.stderr).toBe(0);
    const admin = await spawnStor(['login', '--url', server.baseUrl, '--profile', 'as-admin', '--api-key-stdin'], { env: { ...env, STOR_USER: 'truenas_admin' }, stdin: readFileSync(server.adminKeyFile, 'utf8') });
    expect(admin.code, admin.stderr).toBe(0);
    const run = await spawnStor(['--targets', 'as-alice,as-admin', 'whoami', '--json'], { env: { ...env, STOR_USER: 'truenas_admin' } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).map((o: { target: string; data: { username: string } }) => [o.target, o.data.username])).toEqual([
      ['as-alice', 'alice'],
      ['as-admin', 'truenas_admin'],
    ]);
  });
});
