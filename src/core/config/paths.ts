import { lstatSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

function xdgDir(env: Env, variable: string, fallback: string[]): string {
  const value = env[variable];
  // The XDG spec says relative values are invalid and must be ignored.
  if (value && isAbsolute(value)) return value;
  return join(homeFrom(env), ...fallback);
}

/**
 * The home directory os.homedir() gives a process of environment `env`: HOME when set (even
 * empty), else the user's entry in the password database. Read from `env`, not from the process:
 * inside the session agent a command without HOME would otherwise get the HOME of the command
 * that started the agent.
 */
function homeFrom(env: Env): string {
  return env.HOME ?? userInfo().homedir;
}

/** The appliance state directory: `$STOR_HOME`, else `$XDG_DATA_HOME/stor` (`~/.local/share/stor`). */
export function stateDirFrom(env: Env): string {
  if (env.STOR_HOME) return resolve(env.STOR_HOME);
  return join(xdgDir(env, 'XDG_DATA_HOME', ['.local', 'share']), 'stor');
}

/** Where profiles live: `$STOR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/stor` (`~/.config/stor`). */
export function configDirFrom(env: Env): string {
  if (env.STOR_CONFIG_DIR) return resolve(env.STOR_CONFIG_DIR);
  return join(xdgDir(env, 'XDG_CONFIG_HOME', ['.config']), 'stor');
}

/** Caches stor can lose at any time: `$XDG_CACHE_HOME/stor` (`~/.cache/stor`). */
export function cacheDirFrom(env: Env): string {
  return join(xdgDir(env, 'XDG_CACHE_HOME', ['.cache']), 'stor');
}

/**
 * Where temporary files go: what os.tmpdir() answers (TMPDIR, TMP, TEMP, else /tmp), but read from
 * `env`, so that a command run inside the session agent uses its own, not the agent's.
 */
export function tmpDirFrom(env: Env): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

/**
 * Whether writing in `dir` would add an entry to a directory of another user's: `dir` itself is
 * theirs (what is written goes in it), or making it (mkdir -p) would create its first missing part
 * in one of theirs. A sticky directory such as /tmp is no such directory when `dir` is made in it:
 * what one makes there stays one's own. A path that cannot be looked at (a directory on the way
 * this user may not search) counts as theirs: nothing is made there, and nothing throws.
 */
export function madeInOthersDir(dir: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false;
  try {
    let d = resolve(dir);
    let st = statSync(d, { throwIfNoEntry: false });
    if (st !== undefined) return st.uid !== uid;
    while (st === undefined && dirname(d) !== d) {
      d = dirname(d);
      st = statSync(d, { throwIfNoEntry: false });
    }
    return st !== undefined && st.uid !== uid && (st.mode & 0o1000) === 0;
  } catch {
    return true;
  }
}

/**
 * Another user's uid when `path` lies in the home of `env` (HOME, else the password database's)
 * and an existing entry on the way from it up to that home, the home included, is not this
 * user's; else undefined. Root run with a user's HOME (`sudo` keeping HOME, `sudo -E`) must
 * create nothing there: a root-owned `~/.cache/stor` or `~/.local/state/stor` would later stop
 * that user's own stor from using it. Callers then do without what they would have made (the
 * code cache, the session agent) or refuse (the embedded appliance's state). Imported by the
 * first stage too (src/core/session/start-agent.ts): node:fs, node:os and node:path only.
 */
export function othersInHome(path: string, env: Env): number | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const home = resolve(homeFrom(env));
  const inside = relative(home, resolve(path));
  if (inside.startsWith('..') || isAbsolute(inside)) return undefined;
  for (let d = resolve(path); ; d = dirname(d)) {
    const st = lstatSync(d, { throwIfNoEntry: false });
    if (st !== undefined && st.uid !== uid) return st.uid;
    if (d === home || dirname(d) === d) return undefined;
  }
}
