import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished } from 'vitest';
import { socketPathIn } from '../../src/core/session/paths.js';
import { spawnStor, STOR_BIN } from './bin.js';
import { tempDir } from './temp-dir.js';

/** The built agent (`npm run build` first). */
export const AGENT_BIN = fileURLToPath(new URL('../../dist/bundle/agent.js', import.meta.url));

/** The built bundle's id (dist/bundle/build-id), which names the agent's socket. */
export function builtId(): string {
  return readFileSync(fileURLToPath(new URL('../../dist/bundle/build-id', import.meta.url)), 'utf8').trim();
}

/** The name of the built bundle's socket (paths.ts: socketPathIn, its build id and protocol version). */
export function builtSocketName(): string {
  return basename(socketPathIn('/', builtId()));
}

/**
 * Safety net for bounded waits: only there so that a broken agent fails the test instead of hanging
 * it; as long as helpers/server.ts's, for a loaded machine.
 */
const SAFETY_MS = 120_000;

/** Waits, in a bounded loop, until `check` holds. */
export async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SAFETY_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * An environment in which sessions are on, with a private XDG_RUNTIME_DIR of its own (the agent's
 * socket goes to `<runtime>/stor/`). Every agent running for it is killed when the test ends.
 */
export function sessionEnv(idleSeconds = 60): { env: Record<string, string>; runtime: string; dir: string } {
  const runtime = tempDir('stor-run-');
  onTestFinished(() => killAgentsOf(runtime));
  return {
    env: { XDG_RUNTIME_DIR: runtime, STOR_SESSION: 'on', STOR_SESSION_IDLE: String(idleSeconds) },
    runtime,
    dir: join(runtime, 'stor'),
  };
}

/** Pids of the agents whose environment names `runtime` as XDG_RUNTIME_DIR (read from /proc: we are root). */
export function agentPidsOf(runtime: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.startsWith('stor session agent')) continue;
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state === 'Z') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`XDG_RUNTIME_DIR=${runtime}`)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

export function killAgentsOf(runtime: string): void {
  for (const pid of agentPidsOf(runtime)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Starts `node dist/bundle/agent.js` by hand with `env` (nothing else of this process's environment). */
export function spawnAgent(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [AGENT_BIN], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, exited };
}

/** The agent's socket in `dir`, whatever the build id (one build's agent per test directory). */
export function socketIn(dir: string): string | undefined {
  try {
    const name = readdirSync(dir).find((f) => /^agent-.*\.sock$/.test(f));
    return name ? join(dir, name) : undefined;
  } catch {
    return undefined;
  }
}

/** One request line on the agent's socket, raw; resolves with the answer's first line, parsed. */
export function rawRequest(path: string, request: unknown): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${typeof request === 'string' ? request : JSON.stringify(request)}\n`));
    socket.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl === -1) return;
      socket.destroy();
      resolve(JSON.parse(buf.slice(0, nl)) as Record<string, any>);
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without an answer (${JSON.stringify(buf)})`)));
  });
}

/** Waits until an agent answers a ping in `dir`; resolves with its socket path and pid. */
export async function agentServing(dir: string): Promise<{ socket: string; pid: number }> {
  let found: { socket: string; pid: number } | undefined;
  await until('an agent serves', async () => {
    const socket = socketIn(dir);
    if (!socket) return false;
    try {
      const pong = await rawRequest(socket, { op: 'ping' });
      found = { socket, pid: pong.pid as number };
      return pong.t === 'pong';
    } catch {
      return false;
    }
  });
  return found!;
}

/** Bounds a spawned command that could hang: only there so that a broken agent fails the test. */
export const SAFETY_KILL_MS = 45_000;

/** Runs `args` with sessions on, once an agent serves `dir` (started by an embedded `whoami` if none does yet). */
export async function viaAgent(
  args: string[],
  env: Record<string, string | undefined>,
  dir: string,
  options: { cwd?: string; stdin?: string; umask?: number } = {},
) {
  if (socketIn(dir) === undefined) {
    const { STOR_URL: _url, STOR_API_KEY: _key, TZ: _tz, ...rest } = env;
    const starter = { ...rest, STOR_HOME: tempDir('stor-starter-'), STOR_CONFIG_DIR: tempDir('stor-starter-cfg-') };
    expect((await spawnStor(['whoami'], { env: starter, killAfterMs: SAFETY_KILL_MS })).code).toBe(0);
  }
  await agentServing(dir);
  return spawnStor(args, { env, killAfterMs: SAFETY_KILL_MS, ...options });
}

/** The API key the stand-in appliances of the agent tests accept. */
export const STANDIN_KEY = `1-${'abcdefghijklmnop'.repeat(4)}`;

/** `stor args` with sessions on, as a process the test can signal; `closed` resolves with its exit code and output. */
export function startStor(args: string[], env: Record<string, string>, stdin: 'ignore' | 'pipe' = 'ignore') {
  const child = spawn(process.execPath, [STOR_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  });
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
export async function leasesReleased(dir: string): Promise<void> {
  const { socket } = await agentServing(dir);
  await until('the agent’s command has ended', async () => {
    const { sessions } = await rawRequest(socket, { op: 'list' });
    return (sessions as { active: number }[]).every((s) => s.active === 0);
  });
}
