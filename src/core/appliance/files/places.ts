import { realpathSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import type { FileOwner } from '../../store/files.js';
import type { Appliance } from '../appliance.js';
import { appliancePathOf, resolveSandboxPath, type SandboxPath } from './sandbox.js';

// Where a path lies in the emulated tree, and where that is on this machine: every file method starts here.

/** The owner of what no account owns: root, as the middleware (running as root) makes it. */
export const ROOT: FileOwner = { uid: 0, gid: 0 };

/** The appliance's view of a path: checked, mapped, and with the pools known. */
export function sandboxPath(appliance: Appliance, path: string): SandboxPath {
  const { store } = appliance;
  return resolveSandboxPath(store.mntDir, appliance.pools(), path);
}

export function realpathOf(appliance: Appliance, path: string, host: string, st: Stats): string {
  if (!st.isSymbolicLink()) return path;
  try {
    const real = realpathSync(host);
    // Only a target inside the tree has an appliance path; never show a host path.
    return real.startsWith(appliance.store.mntDir + sep) ? appliancePathOf(appliance.store.mntDir, real) : path;
  } catch {
    return path;
  }
}

/** Mountpoints of filesystem datasets (pool roots included). */
export function mountpoints(appliance: Appliance): ReadonlySet<string> {
  return appliance.store.cached(
    'mountpoints',
    () =>
      new Set(
        appliance
          .datasets()
          .filter((d) => !Object.hasOwn(d.properties, 'volsize'))
          .map((d) => `/mnt/${d.id}`),
      ),
  );
}

/**
 * Where a path lies in the emulated tree. Only the pools' mountpoints exist below /mnt, and
 * nothing but /mnt exists below /: stat and listdir answer every other absolute path as 25.10.1
 * answers a missing one. `/` and `/mnt` are directories owned by root, mode 755, as on a fresh
 * appliance; `/` is a mount root, `/mnt` a plain directory of the boot pool's root dataset, and
 * listing `/` shows `mnt` only (the rest of the appliance's root file system is not emulated).
 * A path with `..` or a NUL byte is refused as the sandbox refuses it.
 */
export type Place = { kind: 'root' } | { kind: 'mnt' } | { kind: 'pool'; p: SandboxPath } | { kind: 'missing' };

export function placeOf(appliance: Appliance, path: string): Place {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (path.startsWith('/') && !segments.includes('..') && !path.includes('\0')) {
    if (segments.length === 0) return { kind: 'root' };
    if (segments[0] !== 'mnt') return { kind: 'missing' };
    if (segments.length === 1) return { kind: 'mnt' };
    if (!appliance.pools().includes(segments[1]!)) return { kind: 'missing' };
  }
  return { kind: 'pool', p: sandboxPath(appliance, path) };
}
