import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { PROTOCOL_VERSION } from './protocol.js';

/*
 * Where the session agent's socket lives, and the checks made before it is used. Imported by the
 * first stage (src/first-stage.ts), which must start in a few milliseconds: node:fs, node:os,
 * node:path and protocol.ts only, and no StorError (callers turn a problem into SESSION_DIR_UNSAFE).
 */

type Env = Readonly<Record<string, string | undefined>>;

/** Set by the bundler (scripts/bundle.mjs) to a hash of the sources; absent when run from src/ or dist/. */
declare const __STOR_BUILD__: string | undefined;

/**
 * Which build of stor this is: part of the socket's name, so a command is never handed to an agent
 * running other code (after an upgrade or a rebuild the old agent simply idles out).
 */
export const BUILD_ID: string = typeof __STOR_BUILD__ === 'string' ? __STOR_BUILD__ : 'dev';

/**
 * The agent's private directory: `$XDG_RUNTIME_DIR/stor` (per login, on tmpfs, removed at logout),
 * else `$XDG_STATE_HOME/stor` (`~/.local/state/stor`). Relative XDG values are ignored, as the XDG
 * specification says.
 */
export function sessionDirFrom(env: Env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime)) return join(runtime, 'stor');
  const state = env.XDG_STATE_HOME;
  if (state && isAbsolute(state)) return join(state, 'stor');
  return join(env.HOME || homedir(), '.local', 'state', 'stor');
}

/** The agent's socket for this build and protocol version, in `dir`. */
export function socketPathIn(dir: string, build: string = BUILD_ID): string {
  return join(dir, `agent-${build.slice(0, 16)}-p${PROTOCOL_VERSION}.sock`);
}

/** Made (exclusively) by whoever starts the agent; tells a second command to wait for it rather than start another. */
export function startingMarkerIn(dir: string, build: string = BUILD_ID): string {
  return join(dir, `agent-${build.slice(0, 16)}-p${PROTOCOL_VERSION}.starting`);
}

function ownUid(): number | undefined {
  return process.getuid?.();
}

function describeOwner(st: Stats, uid: number | undefined): string | undefined {
  if (uid !== undefined && st.uid !== uid) return `owned by uid ${st.uid}, not by this user (uid ${uid})`;
  return undefined;
}

/** What a private entry of the agent's must be: its type, and the mode bits no one else may have. */
interface PrivateKind {
  is(st: Stats): boolean;
  what: string;
  /** What a symbolic link in its place is not. */
  notLink: string;
  forbidden: number;
  mode: string;
}

const PRIVATE_DIR: PrivateKind = {
  is: (st) => st.isDirectory(),
  what: 'a directory',
  notLink: "a directory of this user's",
  forbidden: 0o077,
  mode: '0700',
};
// No execute bit either: a socket is only read and written.
const PRIVATE_SOCKET: PrivateKind = {
  is: (st) => st.isSocket(),
  what: 'a socket',
  notLink: "the agent's socket",
  forbidden: 0o177,
  mode: '0600',
};

/** Why `path` is not a private `kind` of this user's (not a symlink, owned by this user, no access for others), or undefined. */
function privateProblem(path: string, kind: PrivateKind): string | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    return `${path} cannot be examined (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (st.isSymbolicLink()) return `${path} is a symbolic link, not ${kind.notLink}`;
  if (!kind.is(st)) return `${path} is not ${kind.what}`;
  const owner = describeOwner(st, ownUid());
  if (owner) return `${path} is ${owner}`;
  if ((st.mode & kind.forbidden) !== 0)
    return `${path} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}; it must be ${kind.mode}`;
  return undefined;
}

/**
 * Why `dir` must not hold the agent's socket, or undefined when it may: it must be a directory
 * (not a symlink to one), owned by this user, with no access for group or others (0700).
 */
export const privateDirProblem = (dir: string): string | undefined => privateProblem(dir, PRIVATE_DIR);

/**
 * Why the socket at `path` must not be used, or undefined when it may: a socket (not a symlink),
 * owned by this user, mode 0600 (no execute, no access for group or others).
 */
export const privateSocketProblem = (path: string): string | undefined => privateProblem(path, PRIVATE_SOCKET);

/**
 * Whether the directory that would hold the agent's directory exists and belongs to another user:
 * root run with a user's environment (`sudo -E stor …`) sees that user's XDG_RUNTIME_DIR, and an
 * agent's directory made there would be root's, which the user could then neither use nor remove.
 */
export function parentOfAnotherUser(dir: string): boolean {
  const uid = ownUid();
  try {
    return uid !== undefined && lstatSync(dirname(dir)).uid !== uid;
  } catch {
    return false;
  }
}

/**
 * Makes the agent's directory (and missing parents) 0700 if it does not exist, then checks it.
 * An existing directory is never loosened or tightened here: a wrong one is refused, not repaired,
 * since someone else may be holding it open.
 */
export function ensurePrivateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return privateDirProblem(dir);
}
