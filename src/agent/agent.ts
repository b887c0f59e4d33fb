import { lstatSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { answerChecks } from '../core/contract/answer-checks.js';
import { readLines } from '../core/session/lines.js';
import { BUILD_ID, ensurePrivateDir, sessionDirFrom, socketPathIn, startingMarkerIn } from '../core/session/paths.js';
import { SessionPool } from '../core/session/pool.js';
import type { ControlAnswer, Request } from '../core/session/protocol.js';
import { answerControl, isRequest } from './control.js';
import { publishSocket } from './publish.js';
import { handleRun } from './run-request.js';

/** Connections served at once: commands of one user, far more than a runbook runs in parallel. */
export const MAX_CONNECTIONS = 64;
/** A connection must have sent its request within this long. */
export const REQUEST_MS = 10_000;
/** How often the agent checks that the published socket is still its own. */
const WATCH_MS = 2000;
/** Default idle lifetime (STOR_SESSION_IDLE). */
const DEFAULT_IDLE_SECONDS = 600;

export interface RunningAgent {
  /** Resolves with the exit code once the agent has ended (idle, stopped, or its socket replaced). */
  exited: Promise<number>;
  /** Ends it as `stop` does. */
  stop(): Promise<number>;
  /** After an uncaught error: removes the published socket if it is still this agent's. Synchronous. */
  fatal(): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/** STOR_SESSION_IDLE in seconds: a positive number, else the default. */
export function idleSecondsFrom(env: Env): number {
  const n = Number(env.STOR_SESSION_IDLE);
  return env.STOR_SESSION_IDLE !== undefined && Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_SECONDS;
}

/**
 * REQUEST_MS, or less for the test suite: STOR_TEST_AGENT_REQUEST_MS, a whole number of milliseconds
 * below it (docs/ENVIRONMENT.md); anything else, or unset, is REQUEST_MS. It only shortens the wait.
 */
export function requestMsFrom(env: Env): number {
  const raw = env.STOR_TEST_AGENT_REQUEST_MS;
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isInteger(n) && n > 0 && n < REQUEST_MS ? n : REQUEST_MS;
}

/**
 * The session agent (docs/SESSIONS.md): serves this user's commands on a private Unix socket,
 * holding a pool of logged-in connections, until it has been idle STOR_SESSION_IDLE seconds, is
 * told to stop, or finds its socket replaced. It writes nothing but its socket: no log, no file.
 * Resolves once it serves (or with the exit code when it will not: another agent serves, or the
 * directory is unsafe). Process-wide matters (title, signals, uncaught errors) are agent-entry's.
 * `build` names the socket: this code's own build, unless a test serves a built binary's commands.
 */
export async function startAgent(
  env: Env,
  pool: SessionPool = new SessionPool(),
  build: string = BUILD_ID,
): Promise<RunningAgent | { exitCode: number }> {
  const dir = sessionDirFrom(env);
  if (ensurePrivateDir(dir) !== undefined) return { exitCode: 1 };
  // A process that checks the same answers for many commands: worth compiling their checks.
  answerChecks.compile = true;
  const published = socketPathIn(dir, build);
  const startedAt = Date.now();
  const idleMs = idleSecondsFrom(env) * 1000;
  const requestMs = requestMsFrom(env);
  const connections = new Set<Socket>();
  let ino = -1;
  let idleTimer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  let ending: Promise<number> | undefined;
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));

  const server = createServer({ pauseOnConnect: false }, (conn) => accept(conn));
  server.maxConnections = MAX_CONNECTIONS;

  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = connections.size === 0 ? setTimeout(() => void shutdown(), idleMs) : undefined;
  };

  /** Ends the agent: closes every session and connection, and its socket's name if still its own. */
  const shutdown = (code = 0): Promise<number> => {
    ending ??= (async () => {
      clearTimeout(idleTimer);
      clearInterval(watch);
      server.close();
      for (const c of connections) c.destroy();
      if (ownsPublished()) rmSync(published, { force: true });
      await Promise.race([pool.closeAll(), new Promise((r) => setTimeout(r, 2000).unref())]);
      resolveExit(code);
      return code;
    })();
    return ending;
  };

  const ownsPublished = (): boolean => {
    try {
      return lstatSync(published).ino === ino;
    } catch {
      return false;
    }
  };

  const send = (conn: Socket, answer: ControlAnswer) => conn.end(`${JSON.stringify(answer)}\n`);

  function accept(conn: Socket): void {
    if (ending) {
      conn.destroy();
      return;
    }
    connections.add(conn);
    armIdle();
    conn.on('close', () => {
      connections.delete(conn);
      armIdle();
    });
    conn.on('error', () => undefined);
    const deadline = setTimeout(() => conn.destroy(), requestMs);
    conn.on('close', () => clearTimeout(deadline));
    readLines(conn, (line) => {
      clearTimeout(deadline);
      let request: unknown;
      try {
        request = JSON.parse(line);
      } catch {
        request = undefined;
      }
      if (!isRequest(request)) {
        send(conn, { t: 'error', message: 'not a request of this agent' });
        return false;
      }
      // Once readLines has paused the connection and given back what followed the line: a `run`
      // reads the rest itself (run-request.ts resumes it), and must not be paused under its feet.
      queueMicrotask(() => void serve(conn, request));
      return false;
    });
  }

  async function serve(conn: Socket, request: Request): Promise<void> {
    if (request.op === 'run') {
      handleRun(conn, request, pool);
      return;
    }
    if (request.op === 'stop') {
      // Once the answer is on its way: shutdown destroys every connection.
      conn.end(`${JSON.stringify({ t: 'stopping' } satisfies ControlAnswer)}\n`, () => void shutdown());
      return;
    }
    try {
      send(conn, await answerControl(request, pool, { pid: process.pid, startedAt }));
    } catch (err) {
      send(conn, { t: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }

  const outcome = await publishSocket(server, dir, published).catch(() => 'failed' as const);
  if (outcome === 'taken' || outcome === 'failed') {
    server.close();
    rmSync(startingMarkerIn(dir, build), { force: true });
    return { exitCode: outcome === 'taken' ? 0 : 1 };
  }
  ino = outcome.ino;
  rmSync(startingMarkerIn(dir, build), { force: true });
  // Replaced (another agent after ours was removed, or by hand): this one is no longer reachable.
  watch = setInterval(() => {
    if (!ownsPublished()) void shutdown();
  }, WATCH_MS);
  watch.unref();
  armIdle();
  return {
    exited,
    stop: () => shutdown(),
    fatal: () => (ownsPublished() ? rmSync(published, { force: true }) : undefined),
  };
}
