import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/core/error-catalogue.js';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { startRunRequestAgent, type RunRequestAgent } from '../helpers/run-request-agent.js';
import { runBash } from '../helpers/runbook.js';
import { until } from '../helpers/split-upload.js';
import { startStandinAppliance } from '../helpers/standin-appliance.js';
import { answerOnTerminal } from '../helpers/terminal.js';

/*
 * When the first stage runs a command in its own process after all: the agent declined it, or the
 * agent was lost while it ran. Against the real handleRun behind a stand-in of the agent's server
 * (test/helpers/run-request-agent-main.mjs); these move to the real agent once it lands.
 */

const SAFETY_KILL_MS = 45_000;

const logged = (agent: RunRequestAgent, argv: string[]) => agent.handled.find((h) => JSON.stringify(h.argv) === JSON.stringify(argv));

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
    const piped = await spawnStor(['--json', 'user', 'delete', 'bob'], { env: { ...env, ...agent.env }, killAfterMs: SAFETY_KILL_MS });
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

describe("a socket the first stage must not trust", () => {
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
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
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
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
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
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
    const running = spawnStor(['mkdir', '/mnt/tank/new'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('filesystem.mkdir'), 'the agent to be changing');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'stor: the session agent ended while `stor mkdir` ran: whether it changed anything is unknown\n' + 'hint: check before running it again: `stor job list`, `stor stat PATH`\n',
    );
    expect(appliance.calls.filter((c) => c === 'filesystem.mkdir')).toHaveLength(1);
  });

  it('with --json, SESSION_LOST is the one {"error":…} line scripts parse', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('group.create', 1);
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
    const running = spawnStor(['--json', 'call', 'group.create', '{"name":"ops"}'], { env, killAfterMs: SAFETY_KILL_MS });
    await until(() => appliance.calls.includes('group.create'), 'the agent to be changing');
    await agent.kill('SIGKILL');
    const r = await running;
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: E.SESSION_LOST.code, kind: 'unreachable', message: expect.stringContaining('`stor call`'), hint: 'check before running it again: `stor job list`, `stor call group.query`' },
    });
  });

  it('an agent stopped (SIGSTOP) mid-read holds the command no longer than its --timeout: the read completes in its own process', async () => {
    const agent = await startRunRequestAgent();
    const appliance = await holdsFirstCall('filesystem.listdir', []);
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
    const running = spawnStor(['--timeout', '3', '--json', 'ls', '/mnt/tank'], { env, killAfterMs: SAFETY_KILL_MS });
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
    const env = { ...clientEnv(), ...agent.env, STOR_URL: appliance.baseUrl, STOR_API_KEY: '1-abcdefghijklmnopqrstuvwxyz' };
    agent.child.kill('SIGSTOP');
    const change = ['--timeout', '2', 'call', 'group.create', '{"name":"ops"}'];
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
    // Logins: the change's own and the later command's, and at most one more. The stale request
    // can get as far as its login when the agent continues before it has seen its caller hang up
    // (seen once on Node 24 under load); its first call then fails as interrupted, so the change
    // is still made once (above). Closing that window is left open in the notes.
    const logins = appliance.calls.filter((c) => c === 'auth.login_with_api_key').length;
    expect(logins).toBeGreaterThanOrEqual(2);
    expect(logins).toBeLessThanOrEqual(3);
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
