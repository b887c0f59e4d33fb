import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor, STOR_BIN } from '../helpers/bin.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { startStandinAppliance, type StandinAnswer } from '../helpers/standin-appliance.js';
import { tempDir } from '../helpers/temp-dir.js';
import { agentServing, rawRequest, SAFETY_KILL_MS, sessionEnv, until, viaAgent } from '../helpers/session.js';
import { selfSignedCert } from '../helpers/self-signed.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

/*
 * The second attack on the session agent: what a command handed to it does must match what it
 * would have done in its own process. The built bin/stor.js and agent (`npm run build` first).
 */

const STANDIN_KEY = `1-${'abcdefghijklmnop'.repeat(4)}`;

/** A directory entry as filesystem.mkdir answers it. */
function dirEntry(path: string) {
  return {
    name: path.split('/').pop(), path, realpath: path, type: 'DIRECTORY', size: 2, allocation_size: 512, mode: 0o40755, mount_id: 1, acl: false,
    uid: 0, gid: 0, is_mountpoint: false, is_ctldir: false, attributes: [], xattrs: [], zfs_attrs: null,
  };
}

/** `stor args` with sessions on, as a process the test can signal; `closed` resolves with its exit code and output. */
function startStor(args: string[], env: Record<string, string>, stdin: 'ignore' | 'pipe' = 'ignore') {
  const child = spawn(process.execPath, [STOR_BIN, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: [stdin, 'pipe', 'pipe'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), SAFETY_KILL_MS);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, closed };
}

/** Waits until no command holds a lease on the agent's pooled connections: the command handed over has ended there. */
async function leasesReleased(dir: string): Promise<void> {
  const { socket } = await agentServing(dir);
  await until('the agent’s command has ended', async () => {
    const { sessions } = await rawRequest(socket, { op: 'list' });
    return (sessions as { active: number }[]).every((s) => s.active === 0);
  });
}

describe('a command handed to the session agent stops where its own process would have', () => {
  it('Ctrl-C reaches the real agent: a command waiting on the appliance, with no handler of its own, ends at once with 130', async () => {
    const appliance = await startStandinAppliance({ 'auth.login_with_api_key': { result: true }, 'core.ping': { result: 'pong' }, 'filesystem.listdir': { silent: true } });
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

describe('what Node reads for the whole process is the command’s own', () => {
  it('NODE_EXTRA_CA_CERTS: a command trusting a CA the agent was not started with connects as in its own process', async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCert(dir);
    const serve = await spawnServe(join(dir, 'state'), ['--tls-cert', cert, '--tls-key', key]);
    const { env: session, dir: sessions } = sessionEnv();
    // The agent is started by a command without NODE_EXTRA_CA_CERTS (viaAgent's starter).
    const env = { ...clientEnv(), ...session, STOR_URL: serve.baseUrl, STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(), NODE_EXTRA_CA_CERTS: cert };
    const own = await spawnStor(['--json', 'whoami'], { env: { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT } });
    expect(own.code, own.stderr).toBe(0);
    expect(await viaAgent(['--json', 'whoami'], env, sessions)).toEqual(own);
  });

  it('HOME: a command without HOME finds no profiles of the HOME of the command that started the agent, as in its own process', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const { env: session, dir } = sessionEnv();
    const home = tempDir('stor-home-');
    // A profile under that HOME's ~/.config/stor, and the agent started from it (so with that HOME).
    const withHome = { ...session, HOME: home, STOR_HOME: tempDir('stor-client-home-') };
    expect((await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'theirs'], { env: withHome, stdin: readFileSync(serve.adminKeyFile, 'utf8') })).code).toBe(0);
    expect((await spawnStor(['whoami'], { env: withHome })).code).toBe(0);
    await agentServing(dir);
    // Without HOME a process looks in the password database's home (only read here, never written).
    const own = await spawnStor(['--json', 'profile', 'list'], { env: { ...session, HOME: undefined, STOR_SESSION: 'off', ...EMBEDDED_MEANT } });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).not.toContain('theirs');
    expect(await viaAgent(['--json', 'profile', 'list'], { ...session, HOME: undefined }, dir)).toEqual(own);
  });

  it('TMPDIR: `upload -` spools standard input in the command’s temporary directory, not the agent’s', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const { env: session, dir } = sessionEnv();
    const tmp = tempDir('stor-own-tmp-');
    const env = { ...remoteEnv(serve), ...session, TMPDIR: tmp };
    expect((await viaAgent(['whoami'], env, dir)).code).toBe(0);
    const cmd = startStor(['upload', '-', '/mnt/tank/spooled.txt'], env, 'pipe');
    cmd.child.stdin!.write('first part, ');
    // Standard input is still open: the spool file exists while the command reads it.
    await until('the spool is in the command’s TMPDIR', () => readdirSync(tmp).some((f) => f.startsWith('stor-stdin-')));
    cmd.child.stdin!.end('and the rest');
    const ended = await cmd.closed;
    expect(ended.code, ended.stderr).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/spooled.txt'], { env: remoteEnv(serve) });
    expect(JSON.parse(st.stdout)).toMatchObject({ size: 'first part, and the rest'.length });
  });
});

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
            realpath: '/mnt/tank/big', type: 'FILE', size: 1 << 30, allocation_size: 1 << 30, mode: 0o100644, mount_id: 1, uid: 0, gid: 0, atime: 0, mtime: 0,
            ctime: 0, btime: 0, dev: 1, inode: 2, nlink: 1, acl: false, is_mountpoint: false, is_ctldir: false, attributes: [], user: 'root', group: 'root',
          },
        },
        'core.download': { result: [7, '/_download/7?auth_token=t'] },
        'core.get_jobs': { result: [{ id: 7, method: 'filesystem.get', state: 'RUNNING', progress: { percent: 0, description: null, extra: null }, error: null, exc_info: null }] },
      },
      (req, res) => {
        if (!req.url?.startsWith('/_download/7')) return void res.writeHead(404).end();
        transferring = true;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(Buffer.alloc(256 * 1024, 120));
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
