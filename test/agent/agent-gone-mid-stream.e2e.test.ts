import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { startStandinAppliance } from '../helpers/standin-appliance.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  agentServing,
  leasesReleased,
  sessionEnv,
  STANDIN_KEY,
  startStor,
  until,
  viaAgent,
} from '../helpers/session.js';

/*
 * A command handed to the agent whose agent or reader goes away mid-stream ends as its own process
 * would. The built bin/stor.js and agent (`npm run build` first).
 */

describe('a command handed to the agent whose agent or reader goes away', () => {
  it('kill -9 of the agent while `upload -` streams standard input through it: SESSION_LOST, exit 3, and no file on the appliance', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const { env: session, dir } = sessionEnv();
    const tmp = tempDir('stor-own-tmp-');
    const env = { ...remoteEnv(serve), ...session, TMPDIR: tmp };
    expect((await viaAgent(['whoami'], env, dir)).code).toBe(0);
    const { pid } = await agentServing(dir);
    const cmd = startStor(['--json', 'upload', '-', '/mnt/tank/half.txt'], env, 'pipe');
    cmd.child.stdin!.write('the first half, ');
    await until('the agent spools the input', () => readdirSync(tmp).some((f) => f.startsWith('stor-stdin-')));
    process.kill(pid, 'SIGKILL');
    // The rest may find the first stage gone or not: either way it must not be taken for all of it.
    cmd.child.stdin!.on('error', () => undefined);
    cmd.child.stdin!.end('and the second half');
    const ended = await cmd.closed;
    expect(ended.code).toBe(3);
    expect(JSON.parse(ended.stderr).error).toMatchObject({ code: 'SESSION_LOST' });
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/half.txt'], { env: remoteEnv(serve) });
    expect(st.code).not.toBe(0);
  });

  it('standard output closed while `download PATH -` runs through the agent: the first stage exits 0 as its own process would, and the download in the agent stops', async () => {
    // A stand-in whose /_download sends a first piece and then never ends: only a command that stops lets go of it.
    let transferring = false;
    const appliance = await startStandinAppliance(
      {
        'auth.login_with_api_key': { result: true },
        'core.ping': { result: 'pong' },
        'auth.generate_token': { result: 'token' },
        'filesystem.stat': {
          result: {
            realpath: '/mnt/tank/big',
            type: 'FILE',
            size: 1 << 30,
            allocation_size: 1 << 30,
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
        'core.get_jobs': {
          result: [
            {
              id: 7,
              method: 'filesystem.get',
              state: 'RUNNING',
              progress: { percent: 0, description: null, extra: null },
              error: null,
              exc_info: null,
            },
          ],
        },
      },
      (req, res) => {
        if (!req.url?.startsWith('/_download/7')) return void res.writeHead(404).end();
        transferring = true;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        // A download still under way when the reader goes: bytes keep coming as fast as they are
        // taken, so the first stage has more to write after its standard output closed. One chunk
        // and then silence was a race: a reader that had taken the whole chunk before it went left
        // the first stage nothing to write, hence no EPIPE, as its own process would have none.
        const chunk = Buffer.alloc(256 * 1024, 120);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
    );
    const { env: session, dir } = sessionEnv();
    const env = { ...clientEnv(), ...session, STOR_URL: appliance.baseUrl, STOR_API_KEY: STANDIN_KEY };
    expect((await viaAgent(['call', 'core.ping'], env, dir)).code).toBe(0);
    const cmd = startStor(['--timeout', '600', 'download', '/mnt/tank/big', '-'], env);
    await new Promise<void>((resolve) => cmd.child.stdout!.once('data', () => resolve()));
    expect(transferring).toBe(true);
    cmd.child.stdout!.destroy();
    const ended = await cmd.closed;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toBe('');
    await leasesReleased(dir);
  });
});
