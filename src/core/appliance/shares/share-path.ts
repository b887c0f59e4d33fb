import { lstatSync, realpathSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import type { RpcError } from '../../errors.js';
import type { Appliance } from '../appliance.js';
import { mountpoints } from '../files/places.js';
import { appliancePathOf, realRoot } from '../files/sandbox.js';
import { statRealpath } from '../files/stat.js';

// Where a share's path lies: the checks and lookups a share's path goes through, on the emulated tree.

/**
 * `os.path.realpath(path)` on the emulated tree: symlinks below a pool followed, what does not
 * exist kept as written. Null where it leads out of the pools (a symlink to the host's files, which
 * the appliance would show as some path outside /mnt/<pool>).
 */
function applianceRealpath(appliance: Appliance, path: string): string | null {
  const normalized = posix.normalize(path);
  const [, mnt, pool, ...rest] = normalized.split('/');
  if (mnt !== 'mnt' || pool === undefined || !appliance.pools().includes(pool)) return normalized;
  const mntDir = appliance.store.mntDir;
  const root = join(mntDir, pool);
  // The deepest part that exists is resolved; the rest is appended as written, as realpath does.
  for (let keep = rest.length; keep >= 0; keep--) {
    let real: string;
    try {
      real = realpathSync.native(join(root, ...rest.slice(0, keep)));
    } catch {
      continue;
    }
    const rootReal = realRoot(root);
    const realMnt = realRoot(mntDir);
    if (real !== realMnt && !real.startsWith(realMnt + sep)) return null;
    const shown = real === rootReal ? `/mnt/${pool}` : appliancePathOf(realMnt, real);
    return posix.join(shown, ...rest.slice(keep));
  }
  return normalized;
}

/**
 * `check_path_resides_within_volume` (MW/validators.py:154-200, MW/async_validators.py:7-15) for a
 * local path: under /mnt/ and, once symlinks are followed, inside a pool's mountpoint; the pool's
 * root itself passes, /mnt and /mnt/ do not. The `.zfs` control directories it also refuses do not
 * exist in the emulator.
 */
export function pathResidesWithinVolume(appliance: Appliance, path: string): string | null {
  // MW/validators.py:174-177 (path_location: MW/utils/path.py:25-29)
  if (path === 'EXTERNAL' || path.startsWith('EXTERNAL:')) return 'Path is external to TrueNAS.';
  const real = applianceRealpath(appliance, path);
  // MW/validators.py:189-193
  const inPool =
    real !== null && appliance.pools().some((pool) => real === `/mnt/${pool}` || real.startsWith(`/mnt/${pool}/`));
  return path.startsWith('/mnt/') && inPool ? null : 'The path must reside within a pool mount point';
}

/**
 * `filesystem.stat(path)['realpath']` of another share's path, or the path itself where it is gone
 * (ENOENT, "Allow for locked filesystems": MW/plugins/nfs.py:808-814, 920-926).
 */
export function shareRealpath(appliance: Appliance, path: string): string {
  try {
    return statRealpath(appliance, path);
  } catch (err) {
    if ((err as RpcError).data?.errname === 'ENOENT') return path;
    throw err;
  }
}

/**
 * resolve_dataset_path (stable/26 MW/utils/mount.py:20-115): the dataset mounted where `path` lies
 * and the path below its mountpoint (`''` at the mountpoint); null and null where it cannot be
 * resolved: a path that does not exist, or one through a symlink (opened with RESOLVE_NO_SYMLINKS).
 */
export function datasetOfPath(
  appliance: Appliance,
  path: string,
): { dataset: string | null; relative_path: string | null } {
  const unresolved = { dataset: null, relative_path: null };
  const normalized = posix.normalize(path);
  const [, mnt, pool, ...rest] = normalized.split('/');
  if (mnt !== 'mnt' || pool === undefined || !appliance.pools().includes(pool)) return unresolved;
  let host = join(appliance.store.mntDir, pool);
  for (const segment of rest) {
    host = join(host, segment);
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return unresolved;
  }
  // The deepest filesystem mountpoint the path is at or below.
  const owner = [...mountpoints(appliance)]
    .filter((m) => normalized === m || normalized.startsWith(`${m}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (!owner) return unresolved;
  return { dataset: owner.slice('/mnt/'.length), relative_path: posix.relative(owner, normalized) };
}

/**
 * `is_child_realpath(child, parent)` (MW/utils/path.py:120-137): the same path, or below it once
 * symlinks are followed.
 */
export function isChildPath(appliance: Appliance, child: string, parent: string): boolean {
  if (child === parent) return true;
  const real = applianceRealpath(appliance, child);
  const realParent = applianceRealpath(appliance, parent);
  return real !== null && realParent !== null && (real === realParent || real.startsWith(`${realParent}/`));
}
