import type * as ChildProcess from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { othersInHome } from '../config/paths.js';
import { agentProcessEnv } from './process-env.js';
import {
  BUILD_ID,
  ensurePrivateDir,
  parentOfAnotherUser,
  privateSocketProblem,
  sessionDirFrom,
  socketPathIn,
  startingMarkerIn,
} from './paths.js';

/*
 * Starting the session agent (docs/SESSIONS.md). Imported by the first stage (src/first-stage.ts),
 * which must start in a few milliseconds: node:fs and node:module only at load, node:child_process
 * when an agent is actually started, and no StorError (spawn.ts turns a problem into
 * SESSION_DIR_UNSAFE).
 */

type Env = Readonly<Record<string, string | undefined>>;

/** A starting marker younger than this, whose process lives, means an agent is on its way. */
const MARKER_FRESH_MS = 10_000;

/**
 * All the agent is given of the environment: where its socket goes and how long it idles, and
 * (agentProcessEnv) what Node reads for the whole process, such as TZ and the CAs TLS trusts (a
 * command whose values differ runs in its own process: src/agent/run-request.ts). Never a key.
 */
const AGENT_ENV = ['HOME', 'PATH', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME', 'STOR_SESSION_IDLE'] as const;

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Someone is starting an agent: the marker is young and its pid (when written yet) alive. */
function freshMarker(marker: string): boolean {
  try {
    const age = Date.now() - statSync(marker).mtimeMs;
    if (age > MARKER_FRESH_MS) return false;
    const pid = Number(readFileSync(marker, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return true;
    process.kill(pid, 0);
    return true;
  } catch {
    // ENOENT: gone meanwhile; ESRCH, or EPERM (another user's process has that pid): ours is dead.
    return false;
  }
}

/** Creates the marker exclusively; false when another command got there first. A stale one is replaced once. */
function claimMarker(marker: string): number | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return openSync(marker, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0 || freshMarker(marker)) return undefined;
      try {
        unlinkSync(marker);
      } catch {
        // Another command removed it first; the exclusive create decides.
      }
    }
  }
  return undefined;
}

/** What startAgent did: started one (its pid), found one running or being started, found the directory unsafe, or declined another user's directory. */
export type AgentStart =
  { started: number } | { running: true } | { starting: true } | { unsafe: string } | { foreign: true };

/**
 * The agent's directory (made 0700 when missing) and socket, checked: another user's place
 * (`sudo -E`: this command, and the next, run in-process), not private, an agent's socket
 * published, or none yet.
 */
export function agentDirState(
  dir: string,
  env: Env,
  build: string = BUILD_ID,
): { foreign: true } | { unsafe: string } | { running: true } | { absent: true } {
  // In another user's home (root with their HOME), even once that user has an agent directory:
  // theirs, never root's to use or to make.
  if (othersInHome(dir, env) !== undefined || (!exists(dir) && parentOfAnotherUser(dir))) return { foreign: true };
  let problem: string | undefined;
  try {
    problem = ensurePrivateDir(dir);
  } catch (err) {
    problem = `${dir} cannot be made (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (problem) return { unsafe: problem };
  const socket = socketPathIn(dir, build);
  if (!exists(socket)) return { absent: true };
  const socketProblem = privateSocketProblem(socket);
  return socketProblem ? { unsafe: socketProblem } : { running: true };
}

/**
 * Starts this user's session agent unless one runs or is being started: it checks the directory
 * (made 0700 when missing), and when there is no socket (or `staleSocket`: the caller found that
 * nothing listens on it, its agent died) and nobody is starting one, claims the starting marker
 * and spawns `node <entry>` detached (its own session, no standard streams, not waited for) with
 * an environment that holds no key. A stale socket is replaced by the new agent itself, which
 * checks again that nothing answers on it (src/agent/publish.ts).
 */
export function startAgent(env: Env, entry: string, build: string = BUILD_ID, staleSocket = false): AgentStart {
  const dir = sessionDirFrom(env);
  const found = agentDirState(dir, env, build);
  if (!('absent' in found) && !('running' in found && staleSocket)) return found;
  const marker = startingMarkerIn(dir, build);
  if (exists(marker) && freshMarker(marker)) return { starting: true };
  const fd = claimMarker(marker);
  if (fd === undefined) return { starting: true };
  try {
    const agentEnv: Record<string, string> = agentProcessEnv(env);
    for (const name of AGENT_ENV) {
      const value = env[name];
      if (value !== undefined) agentEnv[name] = value;
    }
    // Loaded only now: the first stage, which imports this module, pays for it only when it starts an agent.
    const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
    const child = spawn(process.execPath, [entry], { detached: true, stdio: 'ignore', env: agentEnv, cwd: '/' });
    child.on('error', () => undefined);
    if (child.pid !== undefined) writeSync(fd, String(child.pid));
    else unlinkSync(marker);
    child.unref();
    return child.pid !== undefined ? { started: child.pid } : { starting: true };
  } finally {
    closeSync(fd);
  }
}
