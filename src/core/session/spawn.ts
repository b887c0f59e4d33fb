import { spawn } from 'node:child_process';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { BUILD_ID, ensurePrivateDir, privateSocketProblem, sessionDirFrom, socketPathIn, startingMarkerIn } from './paths.js';
import { sessionSetting } from './setting.js';
import { sessionDirUnsafe } from './unsafe.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A starting marker younger than this, whose process lives, means an agent is on its way. */
const MARKER_FRESH_MS = 10_000;

/** All the agent is given of the environment: where its socket goes, and how long it idles. Never a key. */
const AGENT_ENV = ['HOME', 'PATH', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME', 'STOR_SESSION_IDLE'] as const;

/**
 * Whether sessions are on for a command: `--no-session` (commander's `session: false`) turns them
 * off, else STOR_SESSION (setting.ts); a value that is none of its words is a usage error.
 */
export function sessionsOn(flag: boolean | undefined, env: Env): boolean {
  if (flag === false) return false;
  const setting = sessionSetting(env.STOR_SESSION);
  if (setting === 'invalid') {
    throw new StorError(E.BAD_SESSION_SETTING, `STOR_SESSION=${JSON.stringify(env.STOR_SESSION)} is none of on, off, 1, 0, true, false, yes, no`, {
      hint: 'STOR_SESSION=off runs every command with its own connection; unset it to use the session agent',
    });
  }
  return setting === 'on';
}

/**
 * The agent's bundle entry, next to the CLI's (dist/bundle/agent.js), or undefined when this code
 * does not run from the bundle (tests running src/ in-process never start an agent). This module
 * may be bundled into a chunk (dist/bundle/chunks/).
 */
export function agentEntry(): string | undefined {
  let here: string;
  try {
    here = dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
  const bundle = basename(here) === 'chunks' ? dirname(here) : here;
  const entry = join(bundle, 'agent.js');
  return basename(bundle) === 'bundle' && existsSync(entry) ? entry : undefined;
}

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

/**
 * Whether an agent's socket is published in `dir`, once the directory (made if missing) and the
 * socket are checked: SESSION_DIR_UNSAFE when either is not private.
 */
function agentPublished(dir: string, build: string): boolean {
  let problem: string | undefined;
  try {
    problem = ensurePrivateDir(dir);
  } catch (err) {
    problem = `${dir} cannot be made (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (problem) throw sessionDirUnsafe(problem);
  const socket = socketPathIn(dir, build);
  if (!exists(socket)) return false;
  const socketProblem = privateSocketProblem(socket);
  if (socketProblem) throw sessionDirUnsafe(socketProblem);
  return true;
}

/** The agent start a command asked for (queueAgentStart), made once it has run (startQueuedAgent). */
let queued: { env: Env; entry: string; build: string } | undefined;

/**
 * What a command run in its own process calls as it opens its target: the directory and socket
 * are checked now, as ensureAgent checks them (SESSION_DIR_UNSAFE), but the agent is spawned only
 * by startQueuedAgent(), which bin-entry calls once the command has run and written its answer. An
 * agent's start-up is a whole Node process loading its bundle (≈0.2 s of CPU on Node 20); spawned
 * as the target was opened, it competed for the cores with this very command and the appliance's
 * check of its key, and made the first command slower than one without sessions.
 */
export function queueAgentStart(env: Env, entry: string | undefined = agentEntry(), build: string = BUILD_ID): void {
  if (!entry || queued) return;
  if (agentPublished(sessionDirFrom(env), build)) return;
  queued = { env, entry, build };
}

/** Starts the agent queued by queueAgentStart, if any (ensureAgent); the pid of the agent it started. */
export function startQueuedAgent(): number | undefined {
  const q = queued;
  queued = undefined;
  if (!q) return undefined;
  try {
    return ensureAgent(q.env, q.entry, q.build);
  } catch {
    // Checked when queued; a directory made unsafe since is reported by the next command.
    return undefined;
  }
}

/**
 * Starts this user's session agent when none runs (docs/SESSIONS.md), called as a command opens
 * its target: it checks the directory (SESSION_DIR_UNSAFE when it is not private), and when there
 * is no socket and nobody is starting one, claims the starting marker and spawns
 * `node dist/bundle/agent.js` detached (its own session, no standard streams, not waited for) with
 * an environment that holds no key. The command goes on with its own connection. A few system calls
 * when an agent runs; nothing at all outside the bundle. Returns the pid of the agent it started, if it did.
 */
export function ensureAgent(env: Env, entry: string | undefined = agentEntry(), build: string = BUILD_ID): number | undefined {
  if (!entry) return undefined;
  const dir = sessionDirFrom(env);
  if (agentPublished(dir, build)) return undefined;
  const marker = startingMarkerIn(dir, build);
  if (exists(marker) && freshMarker(marker)) return undefined;
  const fd = claimMarker(marker);
  if (fd === undefined) return undefined;
  try {
    const agentEnv: Record<string, string> = {};
    for (const name of AGENT_ENV) {
      const value = env[name];
      if (value !== undefined) agentEnv[name] = value;
    }
    const child = spawn(process.execPath, [entry], { detached: true, stdio: 'ignore', env: agentEnv, cwd: '/' });
    child.on('error', () => undefined);
    if (child.pid !== undefined) writeSync(fd, String(child.pid));
    else unlinkSync(marker);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}
