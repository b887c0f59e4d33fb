import { lstatSync, mkdirSync, readdirSync, readFileSync, unlinkSync, type Dirent } from 'node:fs';
import { mkdir, realpath, unlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';

/**
 * The temporary file an upload streams into, beside its target: `.stor-put-<pid>-<uuid>.part`.
 * The writer's process id lets a later start-up tell a file left by a killed process from one a
 * live process (another `stor` on the same state directory) is still writing.
 */
export function uploadTempName(uuid: string): string {
  return `.stor-put-${process.pid}-${uuid}.part`;
}

const TEMP = /^\.stor-put-(?:(\d+)-)?[0-9a-f-]{36}\.part$/;
/** Temporary files without a process id come from older versions; those idle this long are left over. */
const UNTAGGED_MAX_AGE_MS = 60 * 60 * 1000;

/** Whether process `pid` still runs (this one always does). */
export function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files of uploads whose process died (kill -9, power loss) from the tree
 * below `mntDir`; the targets were never renamed into place, so nothing else is left of them.
 * Returns the paths removed. Symlinks are not followed.
 */
export function sweepStrayUploads(mntDir: string, now = Date.now()): string[] {
  const removed: string[] = [];
  // A walk of our own: readdirSync's `recursive` follows symlinks (Node 20), and a pool may hold
  // a link to `/`.
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      const m = entry.isFile() ? TEMP.exec(entry.name) : null;
      if (!m) continue;
      try {
        const stale = m[1] !== undefined ? !alive(Number(m[1])) : now - lstatSync(path).mtimeMs > UNTAGGED_MAX_AGE_MS;
        if (!stale) continue;
        unlinkSync(path);
        removed.push(path);
      } catch {
        // Gone already, or not ours to remove: leave it.
      }
    }
  };
  walk(mntDir);
  return removed;
}

/**
 * The state directory's list of uploads under way: one entry per temporary file, named as it is,
 * holding its directory relative to `mnt/`. Opening the state then finds a dead process's
 * leftovers with one read of this (usually empty) directory, not a walk of the whole tree.
 */
const IN_FLIGHT = 'uploads-in-flight';

/**
 * Notes that `tempName` is being written in `hostDir` (a real path below `mntDir`); returns what
 * forgets it again, to be awaited once the file is renamed into place or removed.
 */
export async function noteUploadInFlight(
  stateDir: string,
  mntDir: string,
  hostDir: string,
  tempName: string,
): Promise<() => Promise<void>> {
  const dir = join(stateDir, IN_FLIGHT);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const entry = join(dir, tempName);
  await writeFile(entry, relative(await realpath(mntDir), hostDir), { mode: 0o600 });
  return () => unlink(entry).catch(() => undefined);
}

/**
 * Removes the temporary files the list names whose writer died (kill -9, a closed terminal), and
 * their entries; entries of live processes stay. Returns the paths removed.
 */
export function sweepUploadsInFlight(stateDir: string, mntDir: string): string[] {
  const dir = join(stateDir, IN_FLIGHT);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // Made with the state, so that its tree does not change shape with the first upload.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP.exec(name);
    if (m?.[1] !== undefined && alive(Number(m[1]))) continue;
    const entry = join(dir, name);
    try {
      const rel = m ? readFileSync(entry, 'utf8') : '';
      // Only a file inside the tree, and only a regular one, is ours to remove.
      if (m && !isAbsolute(rel) && !rel.split('/').includes('..')) {
        const path = join(mntDir, rel, name);
        if (lstatSync(path, { throwIfNoEntry: false })?.isFile()) {
          unlinkSync(path);
          removed.push(path);
        }
      }
      unlinkSync(entry);
    } catch {
      // Another process sweeping at the same time, or not ours to remove: leave it.
    }
  }
  return removed;
}
