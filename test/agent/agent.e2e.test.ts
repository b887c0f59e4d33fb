import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { REQUEST_MS, requestMsFrom } from '../../src/agent/agent.js';
import { E } from '../../src/core/error-catalogue.js';
import { ensureAgent, queueAgentStart, startQueuedAgent } from '../../src/core/session/spawn.js';
import { spawnStor, STOR_BIN } from '../helpers/bin.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { filesUnder, leakOf } from '../helpers/key-fragments.js';
import { spawnServe } from '../helpers/serve-process.js';
import {
  AGENT_BIN,
  agentPidsOf,
  agentServing,
  builtId,
  builtSocketName,
  rawRequest,
  sessionEnv,
  spawnAgent,
  until,
} from '../helpers/session.js';
import { startStandinAppliance } from '../helpers/standin-appliance.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

// These tests drive the built bundle: `npm run build` first.

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string } }).error.code;

describe('the session agent process', () => {
  it('a command with sessions on starts one agent: its directory is 0700 and its socket 0600, and it holds nothing else', async () => {
    const { env, dir } = sessionEnv();
    const r = await spawnStor(['whoami', '--json'], { env: { ...clientEnv(), ...env } });
    expect(r.code, r.stderr).toBe(0);
    const { socket } = await agentServing(dir);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(socket).mode & 0o777).toBe(0o600);
    // No log, no temporary name, no starting marker: the socket only.
    await until('the starting marker is gone', () => readdirSync(dir).length === 1);
    expect(readdirSync(dir)).toEqual([socket.slice(dir.length + 1)]);
  });

  it('two ensureAgent at once start one agent', async () => {
    const { env, runtime, dir } = sessionEnv();
    // The second comes before the first agent could publish its socket: the starting marker stops it.
    const spawned = [ensureAgent(env, AGENT_BIN, builtId()), ensureAgent(env, AGENT_BIN, builtId())].filter(
      (pid) => pid !== undefined,
    );
    expect(spawned).toHaveLength(1);
    const { pid } = await agentServing(dir);
    expect(pid).toBe(spawned[0]);
    expect(agentPidsOf(runtime)).toEqual([pid]);
  });

  it('queueAgentStart checks and spawns nothing; startQueuedAgent, run once the command is done, starts the one agent queued', async () => {
    const { env, runtime, dir } = sessionEnv();
    queueAgentStart(env, AGENT_BIN, builtId());
    queueAgentStart(env, AGENT_BIN, builtId());
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual([]);
    expect(agentPidsOf(runtime)).toEqual([]);
    const pid = startQueuedAgent();
    expect(pid).toBeDefined();
    expect(startQueuedAgent()).toBeUndefined();
    expect((await agentServing(dir)).pid).toBe(pid);
    expect(agentPidsOf(runtime)).toEqual([pid]);
  });

  it('a second agent started by hand exits quietly and leaves the first serving', async () => {
    const { env, dir } = sessionEnv();
    spawnAgent(env);
    const first = await agentServing(dir);
    const second = spawnAgent(env);
    expect(await second.exited).toBe(0);
    const pong = await rawRequest(first.socket, { op: 'ping' });
    expect(pong).toMatchObject({ t: 'pong', pid: first.pid });
  });

  it('an agent whose socket was left by a dead agent takes its place', async () => {
    const { env, dir } = sessionEnv();
    const dead = spawnAgent(env);
    const { socket } = await agentServing(dir);
    dead.child.kill('SIGKILL');
    await dead.exited;
    expect(existsSync(socket)).toBe(true);
    spawnAgent(env);
    const next = await agentServing(dir);
    expect(next.pid).not.toBe(dead.child.pid);
  });

  it('exits after STOR_SESSION_IDLE seconds without a connection, removing its socket', async () => {
    const { env, dir } = sessionEnv(1);
    const agent = spawnAgent(env);
    const { socket } = await agentServing(dir);
    expect(await agent.exited).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  it('exits when its published socket is replaced', async () => {
    const { env, dir } = sessionEnv();
    const agent = spawnAgent(env);
    const { socket } = await agentServing(dir);
    const { rmSync } = await import('node:fs');
    rmSync(socket);
    expect(await agent.exited).toBe(0);
  });

  it('answers a line that is not a request with an error, and hangs up without an answer on a line longer than MAX_LINE_BYTES', async () => {
    const { env, dir } = sessionEnv();
    spawnAgent(env);
    const { socket } = await agentServing(dir);
    expect(await rawRequest(socket, 'not json')).toMatchObject({ t: 'error' });
    expect(await rawRequest(socket, { op: 'format-disk' })).toMatchObject({ t: 'error' });
    expect(await rawRequest(socket, { op: 'close' })).toMatchObject({ t: 'error' });
    // More than MAX_LINE_BYTES without a newline: the agent hangs up.
    const { connect } = await import('node:net');
    // A line (not JSON) that would earn an error answer, were it not too long: no answer, the connection ends.
    const answered = await new Promise<string>((resolve) => {
      const s = connect(socket);
      let got = '';
      s.on('data', (d) => (got += d.toString()));
      s.on('error', () => undefined);
      s.on('close', () => resolve(got));
      s.on('connect', () => s.write(Buffer.concat([Buffer.alloc(1024 * 1024 + 10, 'a'), Buffer.from('\n')])));
    });
    expect(answered).toBe('');
    expect(await rawRequest(socket, { op: 'ping' })).toMatchObject({ t: 'pong' });
  });

  it('serves at most 64 connections at once: the next is closed unanswered until one ends', async () => {
    const { env, dir } = sessionEnv();
    spawnAgent(env);
    const { socket } = await agentServing(dir);
    const { connect } = await import('node:net');
    const held = await Promise.all(
      Array.from(
        { length: 64 },
        () =>
          new Promise<import('node:net').Socket>((resolve) => {
            const s = connect(socket, () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    onTestFinished(() => held.forEach((s) => s.destroy()));
    // Closed at once by the agent (a reset or an end, as the kernel has it), never answered.
    await expect(rawRequest(socket, { op: 'ping' })).rejects.toThrow(/closed without an answer|ECONNRESET|EPIPE/);
    const freed = held.pop()!;
    await new Promise<void>((resolve) => {
      freed.on('close', () => resolve());
      freed.destroy();
    });
    await until(
      'a connection is served again',
      async () => (await rawRequest(socket, { op: 'ping' }).catch(() => undefined))?.t === 'pong',
    );
  });

  it("the deadline for a connection's request is 10 s; STOR_TEST_AGENT_REQUEST_MS only shortens it", () => {
    expect(REQUEST_MS).toBe(10_000);
    expect(requestMsFrom({})).toBe(REQUEST_MS);
    expect(requestMsFrom({ STOR_TEST_AGENT_REQUEST_MS: '300' })).toBe(300);
    for (const raw of ['', '0', '-5', '1.5', 'abc', '10000', '60000'])
      expect(requestMsFrom({ STOR_TEST_AGENT_REQUEST_MS: raw }), raw).toBe(REQUEST_MS);
  });

  it('closes a connection that sends no request within its deadline', async () => {
    const { env, dir } = sessionEnv();
    // The agent's own deadline, shortened (the test above checks the 10 s it is without the knob).
    spawnAgent({ ...env, STOR_TEST_AGENT_REQUEST_MS: '300' });
    const { socket } = await agentServing(dir);
    const { connect } = await import('node:net');
    const closed = await new Promise<boolean>((resolve) => {
      const s = connect(socket);
      s.on('error', () => undefined);
      s.on('close', () => resolve(true));
    });
    expect(closed).toBe(true);
  });

  it('`stor session stop --all` ends the agent', async () => {
    const { env, dir } = sessionEnv();
    const agent = spawnAgent(env);
    const { socket } = await agentServing(dir);
    const r = await spawnStor(['session', 'stop', '--all', '--json'], { env: { ...clientEnv(), ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ agent: true, closed: null, stopped: true });
    expect(await agent.exited).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  it('`stor session list` without an agent: an empty list and a note, at once', async () => {
    const { env } = sessionEnv();
    const r = await spawnStor(['session', 'list'], { env: { ...clientEnv(), ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('no session agent is running');
    const json = await spawnStor(['session', 'list', '--json'], { env: { ...clientEnv(), ...env } });
    expect(JSON.parse(json.stdout)).toEqual([]);
    const stop = await spawnStor(['session', 'stop'], { env: { ...clientEnv(), ...env } });
    expect(stop.stderr).toContain('no session agent is running');
  });

  it('--no-session and STOR_SESSION=off start no agent; another STOR_SESSION value is BAD_SESSION_SETTING (exit 2)', async () => {
    const { env, dir } = sessionEnv();
    expect((await spawnStor(['--no-session', 'whoami'], { env: { ...clientEnv(), ...env } })).code).toBe(0);
    expect(
      (await spawnStor(['whoami'], { env: { ...clientEnv(), ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT } })).code,
    ).toBe(0);
    const bad = await spawnStor(['whoami', '--json'], { env: { ...clientEnv(), ...env, STOR_SESSION: 'maybe' } });
    expect(bad.code).toBe(2);
    expect(errorOf(bad.stderr)).toBe(E.BAD_SESSION_SETTING.code);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('an unsafe agent directory', () => {
  /** A stand-in listening where the agent's socket would be: it counts who connects. */
  async function listenerAt(path: string): Promise<() => number> {
    let connections = 0;
    const server = createServer((c) => {
      connections++;
      c.destroy();
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    chmodSync(path, 0o600);
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return () => connections;
  }

  const cases: [string, (dir: string) => void][] = [
    ['of mode 0755', (dir) => chmodSync(dir, 0o755)],
    ['owned by another uid', (dir) => chownSync(dir, 65534, 65534)],
  ];
  for (const [what, spoil] of cases) {
    it(`a directory ${what} is refused with SESSION_DIR_UNSAFE, and nothing in it is connected to`, async () => {
      const name = builtSocketName();
      const { env, dir } = sessionEnv();
      mkdirSync(dir, { mode: 0o700 });
      const connections = await listenerAt(join(dir, name));
      spoil(dir);
      for (const args of [['whoami'], ['session', 'list'], ['session', 'stop', '--all']]) {
        const r = await spawnStor([...args, '--json'], { env: { ...clientEnv(), ...env } });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(errorOf(r.stderr)).toBe(E.SESSION_DIR_UNSAFE.code);
      }
      expect(connections()).toBe(0);
      expect(agentPidsOf(env.XDG_RUNTIME_DIR!)).toEqual([]);
    });
  }

  it('a directory that is a symbolic link is refused with SESSION_DIR_UNSAFE, and nothing in it is connected to', async () => {
    const name = builtSocketName();
    const { env, dir } = sessionEnv();
    const elsewhere = tempDir('stor-elsewhere-');
    const connections = await listenerAt(join(elsewhere, name));
    symlinkSync(elsewhere, dir);
    for (const args of [['whoami'], ['session', 'list']]) {
      const r = await spawnStor([...args, '--json'], { env: { ...clientEnv(), ...env } });
      expect(r.code, r.stderr).toBe(1);
      expect(errorOf(r.stderr)).toBe(E.SESSION_DIR_UNSAFE.code);
    }
    expect(connections()).toBe(0);
  });

  it('a socket of mode 0666 is refused with SESSION_DIR_UNSAFE, and not connected to', async () => {
    const name = builtSocketName();
    const { env, dir } = sessionEnv();
    mkdirSync(dir, { mode: 0o700 });
    const connections = await listenerAt(join(dir, name));
    chmodSync(join(dir, name), 0o666);
    const r = await spawnStor(['session', 'list', '--json'], { env: { ...clientEnv(), ...env } });
    expect(r.code, r.stderr).toBe(1);
    expect(errorOf(r.stderr)).toBe(E.SESSION_DIR_UNSAFE.code);
    expect(connections()).toBe(0);
  });
});

describe('secrets and the agent', () => {
  /** A key of the appliance's form (`<id>-<64 letters and digits>`), new each time. */
  const madeUpKey = (id: number) =>
    `${id}-${Array.from({ length: 64 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomInt(62)]).join('')}`;

  /** Saves profile `name` for `url` with `key` (profile import: no login), in the config of `client`. */
  async function saveProfile(client: Record<string, string>, name: string, url: string, key: string): Promise<void> {
    const list = join(tempDir('stor-profiles-'), 'profiles.json');
    writeFileSync(list, JSON.stringify([{ name, url, key_stdin: true }]));
    const r = await spawnStor(['profile', 'import', list], { env: client, stdin: key });
    expect(r.code, r.stderr).toBe(0);
  }

  it("commands with STOR_API_KEY and with a profile's key run through the agent: nothing of either key in their -v output, nor in the agent's argv, environment or files (its directory, state home, home)", async () => {
    const serve = await spawnServe(tempDir());
    const { env, runtime, dir } = sessionEnv();
    const home = tempDir('stor-home-');
    const stateHome = tempDir('stor-state-');
    const sessions = { ...env, HOME: home, XDG_STATE_HOME: stateHome };
    const remote: Record<string, string> = { ...remoteEnv(serve), ...sessions };
    const envKey = remote.STOR_API_KEY!;
    const made = await spawnStor(['api-key', 'create', 'profile-key', '--user', 'truenas_admin'], { env: remote });
    expect(made.code, made.stderr).toBe(0);
    const profileKey = made.stdout.trim();
    const client = { ...clientEnv(), ...sessions };
    await saveProfile(client, 'nas', serve.baseUrl, profileKey);
    const refusedKey = madeUpKey(9);

    // The first command starts the agent; those after it run there.
    expect((await spawnStor(['whoami'], { env: remote })).code).toBe(0);
    const { pid } = await agentServing(dir);
    expect(agentPidsOf(runtime)).toEqual([pid]);
    const outputs: string[] = [];
    for (const [args, e] of [
      [['-v', 'whoami'], remote],
      [['-v', '--profile', 'nas', 'call', 'auth.me'], client],
      [['-v', 'upload', '-', '/mnt/tank/secret-check'], remote],
    ] as const) {
      const r = await spawnStor([...args], { env: e, stdin: 'bytes' });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(' ')).toContain("stor: trace: session: a lease on the session agent's connection to");
      // The target and transport lines a command's own connection prints (openTarget), through the agent too.
      expect(r.stderr, args.join(' ')).toMatch(/stor: trace: target: .*\nstor: trace: transport: ws \(/);
      outputs.push(r.stdout, r.stderr);
    }
    // A key the appliance refuses: its error, through the agent, names nothing of it either.
    const refused = await spawnStor(['-v', 'whoami'], { env: { ...remote, STOR_API_KEY: refusedKey } });
    expect(refused.code).toBe(4);
    outputs.push(refused.stdout, refused.stderr);
    expect(leakOf(outputs.join('\n'), envKey, profileKey, refusedKey)).toBeUndefined();
    // The commands did run in the agent: it holds their two sessions (the refused key's it forgot).
    expect(JSON.parse((await spawnStor(['session', 'list', '--json'], { env: remote })).stdout)).toHaveLength(2);

    expect(agentPidsOf(runtime)).toEqual([pid]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(cmdline.replace(/\0+$/, '')).toBe('stor session agent');
    expect(leakOf(cmdline + environ, envKey, profileKey, refusedKey)).toBeUndefined();
    expect(
      environ
        .split('\0')
        .filter(Boolean)
        .map((v) => v.split('=')[0])
        .sort(),
    ).toEqual(['HOME', 'PATH', 'STOR_SESSION_IDLE', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME']);
    // Its directory holds its socket and nothing else; no file there, in the state home or the home holds a key.
    for (const f of readdirSync(dir)) expect(lstatSync(join(dir, f)).isSocket()).toBe(true);
    const files = [runtime, stateHome, home].flatMap((d) => filesUnder(d));
    for (const { path, bytes } of files) expect(leakOf(bytes, envKey, profileKey, refusedKey), path).toBeUndefined();
  });

  it("nothing of a key is in ps while commands run: the first stage's argv, the agent's and an in-process command's, with STOR_API_KEY or a profile's key", async () => {
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'filesystem.listdir': { silent: true },
    });
    const { env, runtime, dir } = sessionEnv();
    spawnAgent(env);
    const agent = await agentServing(dir);
    const envKey = madeUpKey(7);
    const profileKey = madeUpKey(8);
    const client = { ...clientEnv(), ...env };
    await saveProfile(client, 'nas', appliance.baseUrl, profileKey);
    const withEnvKey = { ...client, STOR_URL: appliance.baseUrl, STOR_API_KEY: envKey };
    const withProfile = { ...client, STOR_PROFILE: 'nas' };
    // Each waits for an answer that never comes, until it is killed.
    const running = [
      { how: 'through the agent, STOR_API_KEY', child: startStor(['ls', '/mnt/tank'], withEnvKey) },
      { how: 'through the agent, a profile', child: startStor(['ls', '/mnt/tank'], withProfile) },
      {
        how: 'in-process (--no-session), STOR_API_KEY',
        child: startStor(['--no-session', 'ls', '/mnt/tank'], withEnvKey),
      },
      {
        how: 'in-process (STOR_SESSION=off), a profile',
        child: startStor(['ls', '/mnt/tank'], { ...withProfile, STOR_SESSION: 'off', ...EMBEDDED_MEANT }),
      },
    ];
    await until(
      'every command waits for its listing',
      () => appliance.calls.filter((c) => c === 'filesystem.listdir').length === running.length,
    );

    const ps = execFileSync('ps', ['-e', '-ww', '-o', 'pid=,args='], { encoding: 'utf8' });
    const argsOf = (pid: number) => ps.split('\n').find((l) => l.trim().startsWith(`${pid} `));
    expect(argsOf(agent.pid)).toMatch(/ stor session agent$/);
    for (const { how, child } of running) {
      expect(argsOf(child.pid!), how).toContain(`${STOR_BIN} `);
      expect(leakOf(readFileSync(`/proc/${child.pid}/cmdline`), envKey, profileKey), how).toBeUndefined();
    }
    expect(leakOf(ps, envKey, profileKey)).toBeUndefined();
    expect(leakOf(readFileSync(`/proc/${agent.pid}/cmdline`), envKey, profileKey)).toBeUndefined();
    // The two handed over ran in the agent: its two sessions (no process of their own).
    expect(agentPidsOf(runtime)).toEqual([agent.pid]);
    expect(JSON.parse((await spawnStor(['session', 'list', '--json'], { env: client })).stdout)).toHaveLength(2);
  });
});

/** Starts the built stor as spawnStor does, without waiting for it; killed when the test ends. */
function startStor(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [STOR_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
    stdio: 'ignore',
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}
