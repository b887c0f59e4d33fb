import { lstatSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { ERRNO, rpcErrors } from '../../errors.js';

/** A checked path: the appliance's view (`/mnt/tank/a`) and where it lives on this machine. */
export interface SandboxPath {
  /** Normalised appliance path, e.g. `/mnt/tank/docs/a.txt`. */
  path: string;
  pool: string;
  /** Segments below the pool root. */
  rest: string[];
  /** The host path under `<state>/mnt`. */
  host: string;
  /** The pool root on the host. */
  poolRoot: string;
}

const MAX_NAME = 255;
const MAX_PATH = 4096;

export const refuse = (path: string, why: string, errno: number = ERRNO.EINVAL) =>
  rpcErrors.call(errno, `${path}: ${why}`);

/**
 * Maps `/mnt/<pool>/…` into the state directory's `mnt/`, refusing with a clear error — before
 * anything is touched — every path that is relative, holds `..` or a NUL byte, has an over-long
 * name, lies outside an existing pool, or passes through a symlink that leaves the pool.
 */
export function resolveSandboxPath(mntDir: string, pools: readonly string[], path: string): SandboxPath {
  const shown = JSON.stringify(path).slice(1, -1);
  if (path.includes('\0')) throw refuse(shown, 'path contains a NUL byte');
  if (!path.startsWith('/')) throw refuse(path, 'path must be absolute');
  if (Buffer.byteLength(path) > MAX_PATH)
    throw refuse(path.slice(0, 64) + '…', `path is longer than ${MAX_PATH} bytes`, ERRNO.ENAMETOOLONG);
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse(path, "path must not contain '..'");
  const long = segments.find((s) => Buffer.byteLength(s) > MAX_NAME);
  if (long) throw refuse(path.slice(0, 64) + '…', `a name is longer than ${MAX_NAME} bytes`, ERRNO.ENAMETOOLONG);
  const [mnt, pool, ...rest] = segments;
  if (mnt !== 'mnt' || pool === undefined || !pools.includes(pool)) {
    const known = pools.map((p) => `/mnt/${p}`).join(', ') || 'none';
    throw refuse(path, `only paths inside a pool are served (pools: ${known})`, ERRNO.ENOENT);
  }
  const poolRoot = join(mntDir, pool);
  const resolved: SandboxPath = { path: `/${segments.join('/')}`, pool, rest, host: join(poolRoot, ...rest), poolRoot };
  assertInsidePool(resolved);
  return resolved;
}

const realRoots = new Map<string, string>();

/** The pool root's real path; the state directory is ours, so it is resolved once. */
export function realRoot(poolRoot: string): string {
  let real = realRoots.get(poolRoot);
  if (real === undefined) {
    real = realpathSync.native(poolRoot);
    realRoots.set(poolRoot, real);
  }
  return real;
}

/**
 * The existing part of the path must resolve inside the pool: every symlink on the way, the last
 * component included, must stay there. Only the components below the pool root are looked at
 * (the pool root itself is ours), and only a symlink costs a realpath.
 * Called again right before a write, after parent directories were made.
 */
export function assertInsidePool(p: SandboxPath): void {
  let host = p.poolRoot;
  for (const segment of p.rest) {
    host = join(host, segment);
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (!st) return; // the rest does not exist yet: nothing to follow
    if (!st.isSymbolicLink()) {
      if (st.isDirectory()) continue;
      return; // a file: what lies "below" it cannot exist
    }
    let target: string;
    try {
      target = realpathSync.native(host);
    } catch {
      throw refuse(p.path, 'path passes through a dangling symlink');
    }
    const rootReal = realRoot(p.poolRoot);
    if (target !== rootReal && !target.startsWith(rootReal + sep)) {
      throw refuse(p.path, 'path passes through a symlink that leaves the pool', ERRNO.EXDEV);
    }
  }
}

/** The appliance path of a host path inside a pool root. */
export function appliancePathOf(mntDir: string, host: string): string {
  const rel = host.slice(mntDir.length).split(sep).filter(Boolean).join('/');
  return `/mnt/${rel}`;
}
