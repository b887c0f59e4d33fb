import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { startStandinAppliance } from '../helpers/standin-appliance.js';
import { agentServing, rawRequest, sessionEnv, SAFETY_KILL_MS, viaAgent } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

/*
 * Commands handed to the real session agent (the built bin/stor.js, a real `stor serve`) must
 * report what they would have reported in their own process: the same state directory, profile,
 * roles and times. `npm run build` first.
 */

describe('a command handed to the session agent sees what its own process would', () => {
  it('a relative STOR_HOME and STOR_CONFIG_DIR name directories under the command’s working directory, not the agent’s', async () => {
    const { env: session, dir } = sessionEnv();
    const cwd = tempDir('stor-cwd-');
    const name = `stor-attack-${randomBytes(6).toString('hex')}`;
    // Without the fix the agent (cwd /) makes these at the root: removed whatever happens.
    onTestFinished(() => {
      rmSync(join('/', name), { recursive: true, force: true });
      rmSync(join('/', `${name}-cfg`), { recursive: true, force: true });
    });
    const env = { ...session, STOR_HOME: name, STOR_CONFIG_DIR: `${name}-cfg` };
    const own = await spawnStor(['--json', 'whoami'], {
      env: { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT },
      cwd,
      killAfterMs: SAFETY_KILL_MS,
    });
    expect(own.code, own.stderr).toBe(0);
    const handed = await viaAgent(['--json', 'whoami'], env, dir, { cwd });
    expect(handed).toEqual(own);
    expect(JSON.stringify(JSON.parse(handed.stdout).target)).toContain(join(cwd, name));
    expect(existsSync(join('/', name))).toBe(false);
  });

  it('two profiles of one appliance and one key: each command is told its own profile, not the one that opened the pooled connection', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const key = readFileSync(serve.adminKeyFile, 'utf8').trim();
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session };
    for (const profile of ['a', 'b']) {
      expect(
        (
          await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', profile], {
            env,
            stdin: key,
          })
        ).code,
      ).toBe(0);
    }
    const a = await viaAgent(['--json', '--profile', 'a', 'whoami'], env, dir);
    expect(JSON.parse(a.stdout).target).toMatchObject({ profile: 'a' });
    // The agent holds a logged-in connection for that URL and key now.
    expect((await rawRequest((await agentServing(dir)).socket, { op: 'list' })).sessions).toHaveLength(1);
    const b = await viaAgent(['--json', '--profile', 'b', 'whoami'], env, dir);
    const own = await spawnStor(['--json', '--profile', 'b', 'whoami'], {
      env: { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT },
    });
    expect(JSON.parse(own.stdout).target).toMatchObject({ profile: 'b' });
    expect(b).toEqual(own);
  });

  it('a role granted after the agent logged in is used by the next command, as a command of its own would', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const admin = {
      ...clientEnv(),
      STOR_URL: serve.baseUrl,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
      STOR_SESSION: 'off',
      ...EMBEDDED_MEANT,
    };
    const ok = async (args: string[]) => {
      const r = await spawnStor(args, { env: admin });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    await ok(['user', 'create', 'op', '--password-disabled', '--yes']);
    await ok(['privilege', 'create', 'ops', '--groups', 'op', '--roles', 'DATASET_READ', '--yes']);
    const opKey = await ok(['api-key', 'create', 'op-key', '--user', 'op']);
    const { env: session, dir } = sessionEnv();
    const op = { ...clientEnv(), ...session, STOR_URL: serve.baseUrl, STOR_API_KEY: opKey };
    // Refused while op holds DATASET_READ alone; the agent now holds op's logged-in connection.
    expect((await viaAgent(['ls', '/mnt/tank'], op, dir)).code).toBe(5);
    expect((await rawRequest((await agentServing(dir)).socket, { op: 'list' })).sessions).toHaveLength(1);
    await ok(['privilege', 'update', 'ops', '--roles', 'READONLY_ADMIN', '--yes']);
    const own = await spawnStor(['ls', '/mnt/tank'], { env: { ...op, STOR_SESSION: 'off', ...EMBEDDED_MEANT } });
    expect(own.code, own.stderr).toBe(0);
    const handed = await viaAgent(['ls', '/mnt/tank'], op, dir);
    expect(handed).toEqual(own);
    // And the command after it too, on the connection that replaced the old one.
    expect(await viaAgent(['ls', '/mnt/tank'], op, dir)).toEqual(own);
  });

  it('a local date-time is read in the command’s TZ, not the agent’s: api-key create --expires', async () => {
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session };
    // The agent is started without TZ (viaAgent's starter); the command runs in Tokyo (UTC+9, no daylight saving).
    const r = await viaAgent(
      ['--json', 'api-key', 'create', 'later', '--user', 'truenas_admin', '--expires', '2030-06-30T18:00'],
      { ...env, TZ: 'Asia/Tokyo' },
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).expires_at).toBe('2030-06-30T09:00:00.000Z');
  });
  it('a download through a pooled connection gives up after its own --timeout, not after that of the command that opened the connection', async () => {
    // A stand-in appliance whose /_download never answers: only the command's timeout ends the wait.
    const appliance = await startStandinAppliance(
      {
        'auth.login_with_api_key': { result: true },
        'core.ping': { result: 'pong' },
        'filesystem.stat': {
          result: {
            realpath: '/mnt/tank/f',
            type: 'FILE',
            size: 5,
            allocation_size: 5,
            mode: 0o100644,
            mount_id: 1,
            uid: 0,
            gid: 0,
            atime: 0,
            mtime: 0,
            ctime: 0,
            btime: 0,
            dev: 1,
            inode: 2,
            nlink: 1,
            acl: false,
            is_mountpoint: false,
            is_ctldir: false,
            attributes: [],
            user: 'root',
            group: 'root',
          },
        },
        'core.download': { result: [7, '/_download/7?auth_token=t'] },
      },
      () => undefined,
    );
    const { env: session, dir } = sessionEnv();
    const env = {
      ...clientEnv(),
      ...session,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    // The pooled connection is opened by a command with a timeout far above the download's.
    expect((await viaAgent(['--timeout', '600', 'call', 'core.ping'], env, dir)).code).toBe(0);
    expect((await rawRequest((await agentServing(dir)).socket, { op: 'list' })).sessions).toHaveLength(1);
    const r = await viaAgent(
      ['--json', '--timeout', '2', 'download', '/mnt/tank/f', join(tempDir('stor-dl-'), 'f')],
      env,
      dir,
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'TIMEOUT' });
    expect(JSON.parse(r.stderr).error.message).toContain('within 2 s');
  });
});
