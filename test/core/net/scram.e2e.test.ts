/**
 * The built binary's key login against `stor serve --key-login scram` (TrueNAS 26's SCRAM-SHA-512,
 * MW/plugins/auth.py:927-960 at stable/26) and against a plain 25.10.1 emulation: the server's
 * `-v` log names the mechanism each login used, and the client's `-v` says which it chose. The
 * refusals' messages and 26's key records are read in-process (runStor: the same `run()` the
 * binary calls, the same environment); the logins each mechanism makes stay the built binary's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { runStor } from '../../helpers/run-stor.js';
import { clientEnv } from '../../helpers/client-env.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { loginLines, spawnServe } from '../../helpers/serve-process.js';
import { agentPidsOf, sessionEnv, until } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('SCRAM key login (TrueNAS 26), end to end', () => {
  it('stor whoami over wss:// logs in with channel-bound SCRAM, and the key never travels', async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCert(dir);
    const server = await spawnServe(join(dir, 'state'), [
      '-v',
      '--emulate',
      'truenas-25.10.1',
      '--key-login',
      'scram',
      '--tls-cert',
      cert,
      '--tls-key',
      key,
    ]);
    const adminKey = readFileSync(server.adminKeyFile, 'utf8').trim();
    const env = { ...clientEnv(), STOR_URL: server.baseUrl, STOR_API_KEY: adminKey, STOR_USER: 'truenas_admin' };
    const me = await spawnStor(['-v', '--ca', cert, 'whoami', '--json'], { env });
    expect(me.stderr).toContain('login: SCRAM-SHA-512, channel-bound (tls-server-end-point), as truenas_admin');
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ username: 'truenas_admin' });
    expect(JSON.parse(me.stdout).account_attributes).toContain('SCRAM');
    const lines = loginLines(server);
    expect(
      lines.some((l) => /login ok: auth\.login_ex SCRAM channel-bound, user truenas_admin, key id \d+/.test(l)),
    ).toBe(true);
    expect(lines.filter((l) => /API_KEY_PLAIN|login_with_api_key/.test(l))).toEqual([]);
    const secret = adminKey.split('-')[1]!;
    expect(me.stdout + me.stderr + server.stderr()).not.toContain(secret);
  });

  it('over loopback ws:// the exchange is unbound SCRAM (a bound one is refused there, as 26 refuses it)', async () => {
    const server = await spawnServe(tempDir(), ['-v', '--key-login', 'scram']);
    const env = {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      STOR_USER: 'truenas_admin',
    };
    const me = await spawnStor(['-v', 'whoami', '--json'], { env });
    expect(me.code).toBe(0);
    expect(me.stderr).toContain('login: SCRAM-SHA-512, unbound (no TLS), as truenas_admin');
    expect(loginLines(server).some((l) => /login ok: auth\.login_ex SCRAM, user truenas_admin/.test(l))).toBe(true);
  });

  it('a wrong or revoked key, or no user to name: exit 4 with SCRAM_FAILED / SCRAM_NEEDS_USER, and no plain key is ever sent', async () => {
    const server = await spawnServe(tempDir(), ['-v', '--key-login', 'scram']);
    const adminKey = readFileSync(server.adminKeyFile, 'utf8').trim();
    const base = { ...clientEnv(), STOR_URL: server.baseUrl };
    const wrong = await runStor(['whoami'], {
      env: { ...base, STOR_API_KEY: `${adminKey.split('-')[0]}-${'W'.repeat(64)}`, STOR_USER: 'truenas_admin' },
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('SCRAM login to');
    expect(wrong.stderr).toContain('the key was not sent');
    const unknown = await runStor(['whoami'], {
      env: { ...base, STOR_API_KEY: `999-${'W'.repeat(64)}`, STOR_USER: 'truenas_admin' },
    });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('refused the key');
    const nameless = await runStor(['whoami'], { env: { ...base, STOR_API_KEY: adminKey } });
    expect(nameless.code).toBe(4);
    expect(nameless.stderr).toContain('STOR_USER');
    expect(loginLines(server).filter((l) => /API_KEY_PLAIN|login_with_api_key/.test(l))).toEqual([]);
    // The good key still works: nothing above sent it, so nothing revoked it.
    const ok = await runStor(['whoami'], { env: { ...base, STOR_API_KEY: adminKey, STOR_USER: 'truenas_admin' } });
    expect(ok.code).toBe(0);
  });

  it('a plain 25.10.1 server still gets the key (auth.login_with_api_key), as it offers no SCRAM', async () => {
    const server = await spawnServe(tempDir(), ['-v', '--emulate', 'truenas-25.10.1']);
    const env = {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      STOR_USER: 'truenas_admin',
    };
    const me = await spawnStor(['-v', 'whoami', '--json'], { env });
    expect(me.code).toBe(0);
    expect(me.stderr).toContain('login: API key (auth.login_with_api_key; the appliance offers no SCRAM)');
    expect(loginLines(server).some((l) => /login ok: auth\.login_with_api_key, user truenas_admin/.test(l))).toBe(true);
  });

  it('stor login (STOR_USER) saves the user in the profile; the session agent pooled connection logs in with channel-bound SCRAM too', async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCert(dir);
    const server = await spawnServe(join(dir, 'state'), [
      '-v',
      '--key-login',
      'scram',
      '--tls-cert',
      cert,
      '--tls-key',
      key,
    ]);
    const sessions = sessionEnv();
    const env = { ...clientEnv(), ...sessions.env };
    const login = await spawnStor(
      ['--no-session', 'login', '--url', server.baseUrl, '--ca', cert, '--api-key-stdin', '--json'],
      {
        env: { ...env, STOR_USER: 'truenas_admin' },
        stdin: readFileSync(server.adminKeyFile, 'utf8'),
      },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(
      JSON.parse(readFileSync(join(env.STOR_CONFIG_DIR!, 'config.json'), 'utf8')).profiles[
        JSON.parse(login.stdout).profile
      ],
    ).toMatchObject({ username: 'truenas_admin' });
    const first = await spawnStor(['whoami', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).account_attributes).toContain('SCRAM');
    // The first command ran in its own process and started the agent (docs/SESSIONS.md); the next go through it.
    await until('the agent runs', () => agentPidsOf(sessions.runtime).length > 0);
    for (let i = 0; i < 2; i++) expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    const list = await spawnStor(['session', 'list', '--json'], { env });
    expect((JSON.parse(list.stdout) as { target: string }[]).map((x) => x.target)).toEqual([server.baseUrl]);
    // Every login, the agent's pooled one included, was channel-bound SCRAM; none sent the key.
    const oks = loginLines(server).filter((l) => l.includes('login ok:'));
    expect(oks.length).toBeGreaterThanOrEqual(2);
    for (const l of oks) expect(l).toMatch(/login ok: auth\.login_ex SCRAM channel-bound, user truenas_admin/);
    expect(loginLines(server).filter((l) => /API_KEY_PLAIN|login_with_api_key/.test(l))).toEqual([]);
  });

  it("against `--emulate truenas-26.0`, api-key create and list read 26's key records (SCRAM data, no keyhash); whoami names 26.0", async () => {
    // 26's ApiKeyEntry drops keyhash and carries iterations/salt/stored_key/server_key (MW/api/v26_0_0/api_key.py:23-48, stable/26).
    const server = await spawnServe(tempDir(), ['-v', '--emulate', 'truenas-26.0']);
    const env = {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      STOR_USER: 'truenas_admin',
    };
    const created = await runStor(['api-key', 'create', 'backup', '--user', 'truenas_admin'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^\d+-[A-Za-z0-9]{64}$/);
    const list = await runStor(['api-key', 'list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((k) => k.name)).toContain('backup');
    const me = await runStor(['whoami', '--json'], { env });
    expect(JSON.parse(me.stdout)).toMatchObject({ release: '26.0.0-RC.1' });
    expect(loginLines(server).filter((l) => /API_KEY_PLAIN|login_with_api_key/.test(l))).toEqual([]);
  });
});
