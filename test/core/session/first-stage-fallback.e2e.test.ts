import { chmodSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { HEARTBEAT_MS, runMessageReader } from '../../../src/core/session/protocol.js';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { startRunRequestAgent, type RunRequestAgent } from '../../helpers/run-request-agent.js';
import { runBash } from '../../helpers/runbook.js';
import { SAFETY_MS } from '../../helpers/server.js';
import { until } from '../../helpers/split-upload.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { answerOnTerminal } from '../../helpers/terminal.js';

/*
 * When the first stage runs a command in its own process after all: the agent declined it, or the
 * agent was lost while it ran. Against the real handleRun behind a stand-in of the agent's server
 * (test/helpers/run-request-agent-main.mjs); these move to the real agent once it lands.
 */

/** Ends a command that hangs, nothing else: as long as test/helpers/server.ts's SAFETY_MS, for a loaded machine. */
const SAFETY_KILL_MS = SAFETY_MS;

const logged = (agent: RunRequestAgent, argv: string[]) =>
  agent.handled.find((h) => JSON.stringify(h.argv) === JSON.stringify(argv));

/** A stand-in appliance whose `method` answers nothing the first time (the agent's command hangs on it), then `answer`. */
async function holdsFirstCall(method: string, answer: unknown) {
  let asked = 0;
  return startStandinAppliance({
    'auth.login_with_api_key': { result: true },
    [method]: () => (asked++ === 0 ? { silent: true } : { result: answer }),
  });
}

describe('commands the session agent declines run in their own process', () => {
  it('a verb that asks for confirmation, at a terminal, is declined by the agent and asks as before', async () => {
    const agent = await startRunRequestAgent();
    const env = clientEnv();
    expect((await spawnStor(['user', 'create', 'bob', '--password-disabled'], { env })).code).toBe(0);
    const shown = await answerOnTerminal(['user', 'delete', 'bob'], { ...env, ...agent.env }, 'n');
    expect(shown.shown).toContain('Delete user bob');
    expect(shown.code).toBe(1);
    await until(() => logged(agent, ['user', 'delete', 'bob']) !== undefined, 'the agent to log the request');
    expect(logged(agent, ['user', 'delete', 'bob'])!.sent).toEqual(['declined']);
    // Off a terminal the same verb cannot ask: the agent runs it, and it refuses as it always did.
    const piped = await spawnStor(['--json', 'user', 'delete', 'bob'], {
      env: { ...env, ...agent.env },
      killAfterMs: SAFETY_KILL_MS,
    });
    expect(piped.code).toBe(2);
    expect(JSON.parse(piped.stderr).error.code).toBe(E.CONFIRMATION_REQUIRED.code);
    await until(() => logged(agent, ['--json', 'user', 'delete', 'bob']) !== undefined, 'the agent to log the request');
    expect(logged(agent, ['--json', 'user', 'delete', 'bob'])!.sent).toContain('accepted');
  });

  it('help, the version and command lines without command words are answered in-process without asking the agent', async () => {
    const agent = await startRunRequestAgent();
    const env = { ...clientEnv(), ...agent.env };
    for (const args of [['--version'], ['help', 'ls'], ['ls', '--help'], []]) {
      const r = await spawnStor(args, { env, killAfterMs: SAFETY_KILL_MS });
      expect(r.code, args.join(' ')).toBe(0);
    }
    // Asked: the agent declines what the first stage did not recognise as help.
    const r = await spawnStor(['--json', 'ls', '/mnt/tank', '-h'], { env, killAfterMs: SAFETY_KILL_MS });
    expect(r.stdout).toContain('Usage: stor ls');
    // One command handed over would have been logged by now; none was.
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    await until(() => agent.handled.length > 0, 'the agent to log a request');
    expect(agent.handled.map((h) => h.argv)).toEqual([['whoami']]);
  });
});

describe('a socket the first stage must not trust', () => {
  it('never hands a command (nor its environment, which may hold STOR_API_KEY) to a socket whose directory or mode lets others in: it runs in-process', async () => {
    const agent = await startRunRequestAgent();
    const env = { ...clientEnv(), ...agent.env, STOR_API_KEY: 'never-for-a-foreign-socket' };
    const dir = dirname(agent.socket);
    chmodSync(dir, 0o755);
    const openDir = await spawnStor(['ls', '--bogus'], { env, killAfterMs: SAFETY_KILL_MS });
    chmodSync(dir, 0o700);
    chmodSync(agent.socket, 0o666);
    const openSocket = await spawnStor(['ls', '--bogus', '--json'], { env, killAfterMs: SAFETY_KILL_MS });
    chmodSync(agent.socket, 0o600);
    // Both ran, in their own process (a usage error: no target, no key checked).
    expect([openDir.code, openSocket.code]).toEqual([2, 2]);
    // The agent logs each connection as it closes: by the time this one is logged, the two before it would have been.
    expect((await spawnStor(['ls', '--bogus', '-q'], { env, killAfterMs: SAFETY_KILL_MS })).code).toBe(2);
    await until(() => agent.handled.length > 0, 'the agent to log a request');
    expect(agent.handled.map((h) => h.argv)).toEqual([['ls', '--bogus', '-q']]);
  });
});

describe('a session agent lost while a command runs', () => {
  it('a read whose agent is killed (-9) before it printed anything completes in its own process', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('filesystem.listdir', []);
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const running = spawnStor(['--json', 'ls', '/mnt/tank'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('filesystem.listdir'), 'the agent to be reading');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    // Asked twice: by the agent, then by the command's own connection.
    expect(appliance.calls.filter((c) => c === 'filesystem.listdir')).toHaveLength(2);
  });

  it('`stor call` of a method that only reads is a read: killed with its agent, it runs again in its own process', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('core.ping', 'pong');
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const running = spawnStor(['call', 'core.ping'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('core.ping'), 'the agent to be calling');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toBe('pong');
  });

  it('a change whose agent is killed (-9) mid-call fails with SESSION_LOST, exit 3, and says how to check; it is not run again', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('filesystem.mkdir', { mode: 0o40755 });
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const running = spawnStor(['mkdir', '/mnt/tank/new'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('filesystem.mkdir'), 'the agent to be changing');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'stor: the session agent ended while `stor mkdir` ran: whether it changed anything is unknown\n' +
        'hint: check before running it again: `stor job list`, `stor stat PATH`\n',
    );
    expect(appliance.calls.filter((c) => c === 'filesystem.mkdir')).toHaveLength(1);
  });

  it('with --json, SESSION_LOST is the one {"error":…} line scripts parse', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('group.create', 1);
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const running = spawnStor(['--json', 'call', 'group.create', '{"name":"ops"}'], {
      env,
      killAfterMs: SAFETY_KILL_MS,
    });
    await until(() => appliance.calls.includes('group.create'), 'the agent to be changing');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: E.SESSION_LOST.code,
        kind: 'unreachable',
        message: expect.stringContaining('`stor call`'),
        hint: 'check before running it again: `stor job list`, `stor call group.query`',
      },
    });
  });

  it('an agent stopped (SIGSTOP) mid-read is given up on after its missed beats: the read completes in its own process', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('filesystem.listdir', []);
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    // --timeout bounds the read's own connection too (connecting, logging in, listing) after the
    // first stage gives up: a short one raced that work on a loaded machine. A generous one leaves
    // the silence limit at five beats (silenceLimitMs, src/first-stage.ts).
    const running = spawnStor(['--timeout', '120', '--json', 'ls', '/mnt/tank'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('filesystem.listdir'), 'the agent to be reading');
    agent.child.kill('SIGSTOP');
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('an agent stopped before it took the command never runs it once it continues: a change runs once, in its own process', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'group.create': { result: 1 },
      'filesystem.listdir': { result: [] },
    });
    const env = {
      ...clientEnv(),
      ...agent.env,
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    agent.child.kill('SIGSTOP');
    // Generous, as above: the change's own connection must log in and call within it.
    const change = ['--timeout', '120', 'call', 'group.create', '{"name":"ops"}'];
    const r = await spawnStor(change, { env, killAfterMs: SAFETY_KILL_MS });
    expect(r.code, r.stderr).toBe(0);
    expect(appliance.calls.filter((c) => c === 'group.create')).toHaveLength(1);
    agent.child.kill('SIGCONT');
    await until(() => logged(agent, change) !== undefined, 'the agent to see the request');
    // A later command through the same agent, to its end: had the agent started the mkdir, it would have reached the appliance by then.
    expect((await spawnStor(['ls', '/mnt/tank'], { env, killAfterMs: SAFETY_KILL_MS })).code).toBe(0);
    await until(() => logged(agent, ['ls', '/mnt/tank']) !== undefined, 'the agent to log the later command');
    expect(logged(agent, ['ls', '/mnt/tank'])!.sent).toContain('accepted');
    expect(appliance.calls.filter((c) => c === 'group.create')).toHaveLength(1);
    // Logins: the change's own and the later command's. The stale request is read when the agent
    // continues, maybe before its caller's hang-up is: it is accepted, but runs only on a `go` that
    // never came (a raw client makes this deterministic below).
    expect(appliance.calls.filter((c) => c === 'auth.login_with_api_key')).toHaveLength(2);
  });
});

/**
 * A client of the agent's socket speaking the protocol by hand: sends `request`'s line, and keeps
 * every message the agent sends, and the bytes of its output (`out`/`err` announce them);
 * `closed` once the agent has closed its end.
 */
function rawRun(path: string, request: object) {
  const socket: Socket = connect(path);
  const messages: Record<string, unknown>[] = [];
  const output = { out: '', err: '' };
  let to: 'out' | 'err' = 'out';
  socket.on(
    'data',
    runMessageReader(
      (m) => {
        messages.push(m);
        if (m.t === 'out' || m.t === 'err') to = m.t;
      },
      (bytes) => (output[to] += bytes.toString('utf8')),
      (why) => messages.push({ bad: why }),
    ),
  );
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(`${JSON.stringify(request)}\n`);
  return { socket, messages, output, closed, send: (m: object) => socket.write(`${JSON.stringify(m)}\n`) };
}

describe("the agent runs nothing before the first stage's go", () => {
  async function setUp() {
    const agent = await startRunRequestAgent();
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'group.create': { result: 1 },
    });
    const argv = ['--json', 'call', 'group.create', '{"name":"ops"}'];
    const env = {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      ...clientEnv(),
      STOR_URL: appliance.baseUrl,
      STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
    };
    const request = {
      op: 'run',
      argv,
      cwd: process.cwd(),
      env,
      tty: { stdin: false, stdout: false, stderr: false },
      pid: process.pid,
      umask: 0o022,
    };
    return { agent, appliance, argv, request };
  }

  it('a caller that hangs up after `accepted` without `go` (one that gave up on a stopped agent) has nothing run: no login, no call, no beat', async () => {
    const { agent, appliance, argv, request } = await setUp();
    const client = rawRun(agent.socket, request);
    await until(() => client.messages.length > 0, 'the agent to answer');
    expect(client.messages).toEqual([{ t: 'accepted', changes: true }]);
    // Longer than a beat: a command that had started would have beaten, or ended, by now.
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 1.5));
    expect(client.messages).toEqual([{ t: 'accepted', changes: true }]);
    expect(appliance.calls).toEqual([]);
    client.socket.end();
    await until(() => logged(agent, argv) !== undefined, 'the agent to close the connection');
    expect(logged(agent, argv)!.sent).toEqual(['accepted']);
    expect(appliance.calls).toEqual([]);
  });

  it('a signal before `go` is answered as the process would have died of it, and the command never starts', async () => {
    const { agent, appliance, argv, request } = await setUp();
    const client = rawRun(agent.socket, request);
    await until(() => client.messages.length > 0, 'the agent to answer');
    // A `go` right behind the signal changes nothing: the command was stopped before it started.
    client.send({ t: 'signal', s: 'SIGINT' });
    client.send({ t: 'go' });
    await client.closed;
    expect(client.messages).toEqual([
      { t: 'accepted', changes: true },
      { t: 'exit', code: 130 },
    ]);
    await until(() => logged(agent, argv) !== undefined, 'the agent to close the connection');
    expect(appliance.calls).toEqual([]);
  });

  it('after `go` it runs and exits as before', async () => {
    const { agent, appliance, request } = await setUp();
    const client = rawRun(agent.socket, request);
    await until(() => client.messages.length > 0, 'the agent to answer');
    client.send({ t: 'go' });
    await client.closed;
    expect(client.messages.at(0)).toEqual({ t: 'accepted', changes: true });
    expect(client.messages.at(-1)).toEqual({ t: 'exit', code: 0 });
    expect(client.output.out).toBe('1\n');
    expect(client.messages.filter((m) => m.t === 'out')).toEqual([{ t: 'out', n: 2 }]);
    // mechanism_choices first: is SCRAM offered (the stand-in, like 25.10.x, says no)?
    expect(appliance.calls).toEqual(['auth.mechanism_choices', 'auth.login_with_api_key', 'group.create']);
  });
});

describe("a reader that closes the first stage's stdout early (EPIPE)", () => {
  it('ends `stor call core.get_methods | head -1` through the agent with exit 0 and nothing on stderr', async () => {
    const agent = await startRunRequestAgent();
    const env = { ...clientEnv(), ...agent.env };
    const r = await runBash('stor call core.get_methods | head -1', env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{\n');
    await until(() => agent.handled.length > 0, 'the agent to log the request');
    expect(agent.handled[0]!.sent).toContain('accepted');
  });
});
