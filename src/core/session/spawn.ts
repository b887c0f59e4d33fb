import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { BUILD_ID, sessionDirFrom } from './paths.js';
import { sessionSetting } from './setting.js';
import { agentDirState, startAgent } from './start-agent.js';
import { sessionDirUnsafe } from './unsafe.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether sessions are on for a command: `--no-session` (commander's `session: false`) turns them
 * off, else STOR_SESSION (setting.ts); a value that is none of its words is a usage error.
 */
export function sessionsOn(flag: boolean | undefined, env: Env): boolean {
  if (flag === false) return false;
  const setting = sessionSetting(env.STOR_SESSION);
  if (setting === 'invalid') {
    throw new StorError(
      E.BAD_SESSION_SETTING,
      `STOR_SESSION=${JSON.stringify(env.STOR_SESSION)} is none of on, off, 1, 0, true, false, yes, no`,
      {
        hint: 'STOR_SESSION=off runs every command with its own connection; unset it to use the session agent',
      },
    );
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
  const found = agentDirState(sessionDirFrom(env), env, build);
  if ('unsafe' in found) throw sessionDirUnsafe(found.unsafe);
  if ('absent' in found) queued = { env, entry, build };
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
 * Starts this user's session agent when none runs (docs/SESSIONS.md), called once a command in its
 * own process has run (startQueuedAgent): it checks the directory (SESSION_DIR_UNSAFE when it is not private), and when there
 * is no socket and nobody is starting one, claims the starting marker and spawns
 * `node dist/bundle/agent.js` detached (its own session, no standard streams, not waited for) with
 * an environment that holds no key (start-agent.ts, shared with the first stage). The command goes
 * on with its own connection. A few system calls when an agent runs; nothing at all outside the
 * bundle. Returns the pid of the agent it started, if it did.
 */
export function ensureAgent(
  env: Env,
  entry: string | undefined = agentEntry(),
  build: string = BUILD_ID,
): number | undefined {
  if (!entry) return undefined;
  const outcome = startAgent(env, entry, build);
  if ('unsafe' in outcome) throw sessionDirUnsafe(outcome.unsafe);
  return 'started' in outcome ? outcome.started : undefined;
}
