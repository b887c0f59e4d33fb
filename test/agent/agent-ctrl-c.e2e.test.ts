import { describe, expect, it } from 'vitest';
import { clientEnv } from '../helpers/client-env.js';
import { startStandinAppliance, type StandinAnswer } from '../helpers/standin-appliance.js';
import { leasesReleased, sessionEnv, STANDIN_KEY, startStor, until, viaAgent } from '../helpers/session.js';

/*
 * Ctrl-C of a command handed to the session agent stops it where its own process would have:
 * at once with 130, and before any later change reaches the appliance. The built bin/stor.js and
 * agent (`npm run build` first).
 */

/** A directory entry as filesystem.mkdir answers it. */
function dirEntry(path: string) {
  return {
    name: path.split('/').pop(),
    path,
    realpath: path,
    type: 'DIRECTORY',
    size: 2,
    allocation_size: 512,
    mode: 0o40755,
    mount_id: 1,
    acl: false,
    uid: 0,
    gid: 0,
    is_mountpoint: false,
    is_ctldir: false,
    attributes: [],
    xattrs: [],
    zfs_attrs: null,
  };
}

describe('a command handed to the session agent stops where its own process would have', () => {
  it('Ctrl-C reaches the real agent: a command waiting on the appliance, with no handler of its own, ends at once with 130', async () => {
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'core.ping': { result: 'pong' },
      'filesystem.listdir': { silent: true },
    });
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session, STOR_URL: appliance.baseUrl, STOR_API_KEY: STANDIN_KEY };
    expect((await viaAgent(['call', 'core.ping'], env, dir)).code).toBe(0);
    // Its own --timeout is far beyond the test's bound: only the signal can end it in time.
    const cmd = startStor(['--timeout', '600', 'ls', '/mnt/tank'], env);
    await until('the command waits on the appliance', () => appliance.calls.includes('filesystem.listdir'));
    cmd.child.kill('SIGINT');
    const ended = await cmd.closed;
    expect(ended.code, ended.stderr).toBe(130);
  });

  it('Ctrl-C during the first of several changes: the first stage exits 130 and no later change reaches the appliance', async () => {
    let release!: (answer: StandinAnswer) => void;
    const held = new Promise<StandinAnswer>((resolve) => (release = resolve));
    const made: string[] = [];
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'core.ping': { result: 'pong' },
      'filesystem.mkdir': (params) => {
        const path = (params[0] as { path: string }).path;
        made.push(path);
        // The first is answered only once the operator has been told the command was interrupted.
        return made.length === 1 ? { held } : { result: dirEntry(path) };
      },
    });
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session, STOR_URL: appliance.baseUrl, STOR_API_KEY: STANDIN_KEY };
    // The agent runs and holds a logged-in connection to the stand-in.
    expect((await viaAgent(['call', 'core.ping'], env, dir)).code).toBe(0);

    const cmd = startStor(['mkdir', '/mnt/tank/a', '/mnt/tank/b', '/mnt/tank/c'], env);
    await until('the first mkdir reached the appliance', () => made.length === 1);
    cmd.child.kill('SIGINT');
    const ended = await cmd.closed;
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stdout).toBe('');
    // The call under way finishes on the appliance; the command must not go on to the next.
    release({ result: dirEntry('/mnt/tank/a') });
    await leasesReleased(dir);
    expect(made).toEqual(['/mnt/tank/a']);
  });
});
