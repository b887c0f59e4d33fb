import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor, type SpawnResult } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runBash } from '../../helpers/runbook.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { startRunRequestAgent, type RunRequestAgent } from '../../helpers/run-request-agent.js';
import { until } from '../../helpers/split-upload.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import { silenceLimitMs } from '../../../src/first-stage.js';

/*
 * The first stage (bin/stor.js → src/first-stage.ts) against the real handleRun behind a stand-in
 * of the agent's server (test/helpers/run-request-agent-main.mjs); these tests move to the real
 * agent (src/agent/server.ts) once it lands. `npm run build` first.
 */

const SAFETY_KILL_MS = 45_000;

/** What the stand-in agent logged for `argv`, once it has (it logs when the connection closes). */
async function handledRun(agent: RunRequestAgent, argv: string[]): Promise<string[]> {
  const find = () => agent.handled.find((h) => JSON.stringify(h.argv) === JSON.stringify(argv));
  await until(() => find() !== undefined, `the agent's log of ${argv.join(' ')}`);
  return find()!.sent;
}

/** The same command line in this process's own way (sessions off) and through the agent. */
async function bothWays(
  agent: RunRequestAgent,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ direct: SpawnResult; handed: SpawnResult }> {
  const options = { killAfterMs: SAFETY_KILL_MS, ...(cwd ? { cwd } : {}) };
  const direct = await spawnStor(args, { env: { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT }, ...options });
  const handed = await spawnStor(args, { env: { ...env, ...agent.env }, ...options });
  return { direct, handed };
}

describe('a command handed to the session agent (the first stage)', () => {
  it('prints the same stdout, stderr and exit code through the agent as in its own process: reads, errors and usage errors', async () => {
    const agent = await startRunRequestAgent();
    const env = clientEnv();
    // Seeds the embedded state, so both ways see the same one.
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    const lines = [
      ['whoami', '--json'],
      ['whoami'],
      ['ls', '/mnt/tank'],
      ['stat', '/mnt/tank'],
      ['--json', 'stat', '/mnt/tank/missing'],
      ['ls', '--bogus'],
      ['--json', 'ls', '--bogus'],
      ['call', 'filesystem.stat', '"/nonexist"'],
      ['call', 'privilege.get_instance', '9999'],
      ['privilege', 'check'],
    ];
    for (const args of lines) {
      const { direct, handed } = await bothWays(agent, args, env);
      expect({ args, ...handed }).toEqual({ args, ...direct });
      expect(await handledRun(agent, args)).toContain('accepted');
    }
    // A failure of each kind was among them: the comparison proves something.
    expect((await bothWays(agent, ['ls', '--bogus'], env)).handed.code).toBe(2);
  });

  it('uploads a file named relative to the working directory of the command, not of the agent', async () => {
    const agent = await startRunRequestAgent();
    const cwd = tempDir('stor-cwd-');
    writeFileSync(join(cwd, 'report.txt'), 'twelve bytes');
    const viaAgent = clientEnv();
    const direct = clientEnv();
    const handed = await spawnStor(['upload', 'report.txt', '/mnt/tank/'], {
      env: { ...viaAgent, ...agent.env },
      cwd,
      killAfterMs: SAFETY_KILL_MS,
    });
    const own = await spawnStor(['upload', 'report.txt', '/mnt/tank/'], {
      env: direct,
      cwd,
      killAfterMs: SAFETY_KILL_MS,
    });
    expect(handed).toEqual(own);
    expect(handed.code).toBe(0);
    expect(await handledRun(agent, ['upload', 'report.txt', '/mnt/tank/'])).toEqual(
      expect.arrayContaining(['accepted', 'exit']),
    );
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/report.txt'], { env: viaAgent });
    expect(JSON.parse(st.stdout)).toMatchObject({ size: 12 });
  });

  it('relays standard input only when the command reads it: `whoami` with stdin left open does not wait, `upload -` gets every byte', async () => {
    const agent = await startRunRequestAgent();
    const env = { ...clientEnv(), ...agent.env };
    // stdin is a pipe this test never closes: a first stage that read it would never end.
    const child = spawn(process.execPath, [STOR_BIN, 'whoami', '--json'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), SAFETY_KILL_MS);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ username: 'truenas_admin' });
    expect(await handledRun(agent, ['whoami', '--json'])).not.toContain('pull');

    const bytes = 'x'.repeat(200_000);
    const up = await spawnStor(['upload', '-', '/mnt/tank/from-stdin.txt'], {
      env,
      stdin: bytes,
      killAfterMs: SAFETY_KILL_MS,
    });
    expect(up.code, up.stderr).toBe(0);
    expect(await handledRun(agent, ['upload', '-', '/mnt/tank/from-stdin.txt'])).toContain('pull');
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/from-stdin.txt'], { env });
    expect(JSON.parse(st.stdout)).toMatchObject({ size: bytes.length });
  });

  it('a first stage stopped past the silence limit (Ctrl-Z, then fg) goes on with its agent: the beats that waited meanwhile are read before the silence is judged', async () => {
    const agent = await startRunRequestAgent();
    const tmp = tempDir('stor-tmp-');
    const env = { ...clientEnv(), ...agent.env, ...EMBEDDED_MEANT, TMPDIR: tmp };
    const args = ['upload', '-', '/mnt/tank/paused.txt'];
    const child = spawn(process.execPath, [STOR_BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), SAFETY_KILL_MS + 10_000);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('before the pause, ');
    // The command runs in the agent and has pulled standard input: it spools it in TMPDIR.
    const spooled = () =>
      readdirSync(tmp)
        .filter((d) => d.startsWith('stor-stdin-'))
        .some((d) => existsSync(join(tmp, d, 'stdin')) && statSync(join(tmp, d, 'stdin')).size > 0);
    await until(spooled, 'the agent spooling standard input');
    child.kill('SIGSTOP');
    // Past the first stage's silence limit, while the agent keeps beating.
    await new Promise((resolve) => setTimeout(resolve, silenceLimitMs(readCommandLine(args)) + 2000));
    child.kill('SIGCONT');
    child.stdin.end('after it');
    const code = await closed;
    clearTimeout(killer);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('/mnt/tank/paused.txt');
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/paused.txt'], { env });
    expect(JSON.parse(st.stdout)).toMatchObject({ size: 'before the pause, after it'.length });
  });

  it('relays bytes that are not text (`download PATH -`) unchanged', async () => {
    const agent = await startRunRequestAgent();
    const env = clientEnv();
    const cwd = tempDir('stor-cwd-');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    writeFileSync(join(cwd, 'blob.bin'), bytes);
    expect((await spawnStor(['upload', 'blob.bin', '/mnt/tank/'], { env, cwd })).code).toBe(0);
    const sum = 'stor download /mnt/tank/blob.bin - | sha256sum';
    const direct = await runBash(sum, { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT });
    const handed = await runBash(sum, { ...env, ...agent.env });
    expect(handed).toEqual(direct);
    expect(direct.stdout.split(' ')[0]).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await handledRun(agent, ['download', '/mnt/tank/blob.bin', '-'])).toContain('accepted');
  });

  it('a Ctrl-C (SIGINT) to the first stage reaches the command in the agent: a command with no handler of its own ends at once with 130', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'filesystem.listdir': { silent: true },
    });
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const child = spawn(process.execPath, [STOR_BIN, 'ls', '/mnt/tank'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), SAFETY_KILL_MS);
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(() => appliance.calls.includes('filesystem.listdir'), 'the command to be waiting on the appliance');
    child.kill('SIGINT');
    const code = await closed;
    clearTimeout(killer);
    expect(code).toBe(130);
    expect(await handledRun(agent, ['ls', '/mnt/tank'])).toEqual(expect.arrayContaining(['accepted', 'exit']));
  });
});
