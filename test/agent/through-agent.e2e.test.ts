import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/core/error-catalogue.js';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { agentServing, sessionEnv } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

/*
 * The end-to-end cases with the real agent: the built binary with sessions on starts it
 * (detached, as for a user), later commands run in it against a real `stor serve`.
 */

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string } }).error;

async function sessionsOf(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  const r = await spawnStor(['session', 'list', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

/** Runs `whoami` twice with `env`: the first starts the agent, the second runs in it and leaves a session of its key there. */
async function warmUp(env: Record<string, string>, dir: string): Promise<void> {
  const first = await spawnStor(['whoami'], { env });
  expect(first.code, first.stderr).toBe(0);
  await agentServing(dir);
  const second = await spawnStor(['whoami'], { env });
  expect(second.code, second.stderr).toBe(0);
  // whoami's two calls: auth.me, and the release (stor.emulation on the emulator).
  expect(await sessionsOf(env)).toEqual([
    expect.objectContaining({ user: 'truenas_admin', connected: true, calls: 2 }),
  ]);
}

describe('commands through the real session agent', () => {
  it("a revoked key's next command exits 4 with KEY_REJECTED, exactly as with STOR_SESSION=off, and the agent keeps no session of that key", async () => {
    const serve = await spawnServe(tempDir());
    const admin = {
      ...clientEnv(),
      STOR_URL: serve.baseUrl,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    };
    const created = await spawnStor(['api-key', 'create', 'runbook', '--user', 'truenas_admin'], { env: admin });
    expect(created.code, created.stderr).toBe(0);
    const { env, dir } = sessionEnv();
    const user = { ...clientEnv(), ...env, STOR_URL: serve.baseUrl, STOR_API_KEY: created.stdout.trim() };
    await warmUp(user, dir);
    // Revoked through another credential, with no agent.
    const revoked = await spawnStor(['api-key', 'revoke', 'runbook', '--yes'], { env: admin });
    expect(revoked.code, revoked.stderr).toBe(0);

    const through = await spawnStor(['whoami', '--json'], { env: user });
    expect(through.code).toBe(4);
    expect(errorOf(through.stderr).code).toBe(E.KEY_REJECTED.code);
    const direct = await spawnStor(['whoami', '--json'], { env: { ...user, STOR_SESSION: 'off', ...EMBEDDED_MEANT } });
    expect(through).toEqual(direct);
    // The agent ran it (its session's login failed there) and forgot the session, key and user with it.
    expect(await sessionsOf(user)).toEqual([]);
  });

  it('a verb under a sub-noun (share nfs create, share smb create) runs in the agent as it runs in-process', async () => {
    const serve = await spawnServe(tempDir());
    const { env, dir } = sessionEnv();
    const user = {
      ...clientEnv(),
      ...env,
      STOR_URL: serve.baseUrl,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    };
    const direct = { ...user, STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    await warmUp(user, dir);
    expect((await spawnStor(['mkdir', '-p', '/mnt/tank/x'], { env: direct })).code).toBe(0);
    const nfs = ['share', 'nfs', 'create', '/mnt/tank/x', '--networks', '10.0.0.0/24', '--json'];
    const made = await spawnStor(nfs, { env: user });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ ref: 'nfs:1', changed: true });
    const smb = await spawnStor(['share', 'smb', 'create', 'docs', '/mnt/tank/x', '--json'], { env: user });
    expect(smb.code, smb.stderr).toBe(0);
    // The agent ran them: its session made their calls.
    const [session] = await sessionsOf(user);
    expect(session!.calls).toBeGreaterThan(2);
    // Re-run with --exist-ok, through the agent and in-process alike: already there.
    const again = await spawnStor([...nfs, '--exist-ok'], { env: user });
    expect(again).toEqual(await spawnStor([...nfs, '--exist-ok'], { env: direct }));
    expect(JSON.parse(again.stdout)).toMatchObject({ ref: 'nfs:1', changed: false });
    // An unknown verb under the sub-noun is the same usage error wherever it is printed.
    const wrong = await spawnStor(['share', 'nfs', 'frob'], { env: user });
    expect(wrong.code).toBe(2);
    expect(wrong).toEqual(await spawnStor(['share', 'nfs', 'frob'], { env: direct }));
  });

  it('`stor logout` closes the session a command of that profile left in the agent', async () => {
    const serve = await spawnServe(tempDir());
    const client = clientEnv();
    const login = await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'nas'], {
      env: client,
      stdin: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    });
    expect(login.code, login.stderr).toBe(0);
    const { env, dir } = sessionEnv();
    const user = { ...client, ...env };
    await warmUp(user, dir);
    const logout = await spawnStor(['logout'], { env: user });
    expect(logout.code, logout.stderr).toBe(0);
    expect(await sessionsOf(user)).toEqual([]);
  });
});
