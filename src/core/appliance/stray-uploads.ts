import { lstatSync, readdirSync, unlinkSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

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

function alive(pid: number): boolean {
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
