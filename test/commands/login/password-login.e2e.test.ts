import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { runStor } from '../../helpers/run-stor.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import {
  createUserWithPassword,
  enableTwoFactor,
  openTestAppliance,
  type TestAppliance,
} from '../../helpers/appliance.js';
import { currentCode, wrongCode } from '../../helpers/totp.js';
import { clientEnv } from '../../helpers/client-env.js';

const PASSWORD = 'Tr0ub4dor&3 horse';

/*
 * A login that reads the password (and the one-time code) from the standard input of a real process
 * runs the built binary; the other commands run in-process (runStor: the same `run()` the binary
 * calls, the same environment), as what they check is the appliance's answer and the files left.
 */

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * A state directory set up through the appliance itself (as an administrator would over the API),
 * before `stor serve` opens it: spawning the CLI for each setup call would make these tests slow.
 */
async function stateWith(setup: (t: TestAppliance) => Promise<void>): Promise<string> {
  const stateDir = tempDir();
  const t = await openTestAppliance(undefined, stateDir);
  await setup(t);
  t.appliance.close();
  return stateDir;
}

/** Names of the user's API keys, read from the state the server is using (SQLite WAL: several processes). */
async function keyNamesOf(stateDir: string, username: string): Promise<string[]> {
  const t = await openTestAppliance(undefined, stateDir);
  try {
    return (await t.call<{ name: string }[]>(t.admin, 'api_key.query', [['username', '=', username]])).map(
      (k) => k.name,
    );
  } finally {
    t.appliance.close();
  }
}

/** The password must be nowhere on either machine but in the appliance's own hash of it. */
function expectPasswordNowhere(server: ServeProcess, client: Record<string, string>, outputs: string[]): void {
  for (const out of outputs) expect(out).not.toContain(PASSWORD);
  for (const file of [
    ...filesUnder(client.STOR_CONFIG_DIR!),
    ...filesUnder(client.STOR_HOME!),
    ...filesUnder(server.stateDir),
  ]) {
    expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
  }
}

describe('stor login --username, end to end', () => {
  it('logs in with a password, saves a new API key (never the password), and whoami works as that user', async () => {
    const server = await spawnServe(
      await stateWith((t) =>
        createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] }).then(() => undefined),
      ),
    );
    const env = clientEnv();

    const login = await spawnStor(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
      { env, stdin: `${PASSWORD}\n` },
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const result = JSON.parse(login.stdout);
    const name = new URL(server.baseUrl).host.replace(':', '-');
    expect(result).toMatchObject({
      profile: name,
      url: server.baseUrl,
      username: 'alice',
      current: true,
      created: true,
    });
    expect(result.api_key_name).toMatch(/^stor-.+-\d{8}T\d{6}Z$/);
    expect(await keyNamesOf(server.stateDir, 'alice')).toEqual([result.api_key_name]);

    const profile = JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles[name];
    // The key's user (SCRAM names it, TrueNAS 26) and the key stor made, to revoke at logout; never the password.
    expect(Object.keys(profile).sort()).toEqual(['apiKey', 'createdKey', 'url', 'username']);
    expect(profile).toMatchObject({ username: 'alice', createdKey: { name: result.api_key_name } });
    expect(profile.apiKey).toMatch(/^\d+-[A-Za-z0-9]{64}$/);

    const me = await runStor(['whoami', '--json'], { env });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ username: 'alice', account_attributes: ['LOCAL', 'API_KEY'] });

    // A second login, perhaps within the same second, gets a key of its own.
    const again = await runStor(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--profile', 'second', '--json'],
      { env, stdin: PASSWORD },
    );
    expect(again.code).toBe(0);
    expect(new Set(await keyNamesOf(server.stateDir, 'alice')).size).toBe(2);

    await server.stop();
    expectPasswordNowhere(server, env, [login.stdout, login.stderr, me.stdout, again.stdout, again.stderr]);
  });

  it('answers the two-factor challenge with the code on the second line of stdin', async () => {
    let secret = '';
    const server = await spawnServe(
      await stateWith(async (t) => {
        await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
        secret = await enableTwoFactor(t, 'alice');
      }),
    );
    const env = clientEnv();

    const noCode = await runStor(['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin'], {
      env,
      stdin: `${PASSWORD}\n`,
    });
    expect(noCode.code).toBe(2);
    expect(noCode.stderr).toContain('alice has two-factor authentication, and no one-time code was given');
    expect(noCode.stderr).toContain('second line of standard input');

    const login = await spawnStor(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
      {
        env,
        stdin: `${PASSWORD}\n${currentCode(secret)}\n`,
      },
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(await keyNamesOf(server.stateDir, 'alice')).toEqual([JSON.parse(login.stdout).api_key_name]);
    const me = await runStor(['whoami', '--json'], { env });
    expect(JSON.parse(me.stdout)).toMatchObject({ username: 'alice', account_attributes: ['LOCAL', 'API_KEY'] });

    await server.stop();
    expectPasswordNowhere(server, env, [noCode.stderr, login.stdout, login.stderr]);
  });

  it('exits 4 and creates no key for a wrong password, a wrong code, or a user bound to no privilege', async () => {
    let carolSecret = '';
    const server = await spawnServe(
      await stateWith(async (t) => {
        await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
        await createUserWithPassword(t, 'bob', PASSWORD);
        await createUserWithPassword(t, 'carol', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
        carolSecret = await enableTwoFactor(t, 'carol');
      }),
    );
    const env = clientEnv();
    const login = (username: string, stdin: string) =>
      runStor(['login', '--url', server.baseUrl, '--username', username, '--password-stdin'], { env, stdin });

    const wrongPassword = await login('alice', 'not-the-password\n');
    expect(wrongPassword.code).toBe(4);
    expect(wrongPassword.stderr).toContain('refused the login as alice: wrong username or password');
    expect(wrongPassword.stderr).not.toContain('not-the-password');

    const noPrivilege = await login('bob', `${PASSWORD}\n`);
    expect(noPrivilege.code).toBe(4);
    expect(noPrivilege.stderr).toContain('bound to no privilege');

    const badCode = await login('carol', `${PASSWORD}\n${wrongCode(carolSecret)}\n`);
    expect(badCode.code).toBe(4);
    expect(badCode.stderr).toContain('rejected the one-time code for carol');

    for (const user of ['alice', 'bob', 'carol']) expect(await keyNamesOf(server.stateDir, user)).toEqual([]);
    expect(existsSync(join(env.STOR_CONFIG_DIR!, 'config.json'))).toBe(false);
    await server.stop();
    expectPasswordNowhere(server, env, [wrongPassword.stderr, noPrivilege.stderr, badCode.stderr]);
  });

  it('refuses to send a password in clear to a non-loopback host, before reading it', async () => {
    const env = clientEnv();
    const r = await runStor(['login', '--url', 'ws://10.1.2.3', '--username', 'alice', '--password-stdin'], {
      env,
      stdin: `${PASSWORD}\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to send a password in clear to 10.1.2.3');
    expect(r.stderr).not.toContain(PASSWORD);
    const mixed = await runStor(['login', '--url', 'ws://127.0.0.1:1', '--username', 'alice', '--api-key-stdin'], {
      env,
    });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('cannot be used with');
  });
});

describe('stor logout after login --username revokes the key stor created, after consent', () => {
  const stor = async (env: Record<string, string>, args: string[], stdin?: string) =>
    runStor(args, { env, ...(stdin !== undefined ? { stdin } : {}) });

  it('piped without --yes it refuses and changes nothing; --keep-key keeps the key; --yes revokes it; a key given to login is said to live on', async () => {
    const stateDir = await stateWith((t) =>
      createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] }).then(() => undefined),
    );
    const server = await spawnServe(stateDir);
    const env = clientEnv();
    const loginAlice = async () => {
      const r = await stor(
        env,
        ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
        `${PASSWORD}\n`,
      );
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).api_key_name as string;
    };

    const first = await loginAlice();
    const refused = await stor(env, ['logout', '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(JSON.parse(refused.stderr).error.hint).toContain('--keep-key');
    expect(await keyNamesOf(stateDir, 'alice')).toEqual([first]);
    expect((await stor(env, ['whoami', '--json'])).code).toBe(0);

    const kept = await stor(env, ['logout', '--keep-key', '--json']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({
      removed: true,
      key: { created_by_stor: true, name: first, revoked: false },
    });
    expect(await keyNamesOf(stateDir, 'alice')).toEqual([first]);

    const second = await loginAlice();
    const revoked = await stor(env, ['logout', '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('key revoked\ttrue');
    expect(await keyNamesOf(stateDir, 'alice')).toEqual([first]);
    expect(second).not.toBe(first);

    // A key stor did not create: forgotten here, and said plainly to stay valid there.
    const given = await stor(
      env,
      ['login', '--url', server.baseUrl, '--api-key-stdin'],
      readFileSync(server.adminKeyFile, 'utf8'),
    );
    expect(given.code, given.stderr).toBe(0);
    const plain = await stor(env, ['logout']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('stays valid on');
    expect(plain.stderr).toContain('stor did not create it');
    expect(await server.stop()).toBe(0);
  });
});
