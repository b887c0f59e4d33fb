import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { BUILD_ID } from './paths.js';
import { sessionSetting } from './setting.js';
import { startAgent } from './start-agent.js';
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

/**
 * Starts this user's session agent when none runs (docs/SESSIONS.md), called as a command opens
 * its target: it checks the directory (SESSION_DIR_UNSAFE when it is not private), and when there
 * is no socket and nobody is starting one, claims the starting marker and spawns
 * `node dist/bundle/agent.js` detached (its own session, no standard streams, not waited for) with
 * an environment that holds no key (start-agent.ts, shared with the first stage). The command goes
 * on with its own connection. A few system calls when an agent runs; nothing at all outside the
 * bundle. Returns the pid of the agent it started, if it did.
 */
export function ensureAgent(env: Env, entry: string | undefined = agentEntry(), build: string = BUILD_ID): number | undefined {
  if (!entry) return undefined;
  const outcome = startAgent(env, entry, build);
  if ('unsafe' in outcome) throw sessionDirUnsafe(outcome.unsafe);
  return 'started' in outcome ? outcome.started : undefined;
}
