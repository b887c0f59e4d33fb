import type { Dirent } from 'node:fs';
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Walks of whole dataset trees, asynchronous so that a large tree holds up no other client. Each
 * step takes at most BATCH file-system calls at once: the libuv thread pool is shared with the
 * WebSocket's compression, so flooding it would stall every other client's answers just the same.
 * Symlinks are never followed.
 */
const BATCH = 16;

const ignoreMissing = (err: NodeJS.ErrnoException) => {
  if (err.code !== 'ENOENT') throw err;
};

/** Bytes of the files below `dir`, leaving out the trees in `skip` (child datasets' mountpoints). */
export async function bytesBelow(dir: string, skip: ReadonlySet<string>): Promise<number> {
  let total = 0;
  const pending = [dir];
  for (let d = pending.pop(); d !== undefined; d = pending.pop()) {
    let names: string[];
    try {
      names = await readdir(d);
    } catch {
      continue;
    }
    const paths = names.map((n) => join(d!, n)).filter((p) => !skip.has(p));
    for (let i = 0; i < paths.length; i += BATCH) {
      const batch = paths.slice(i, i + BATCH);
      const stats = await Promise.all(batch.map((p) => lstat(p).catch(() => null)));
      stats.forEach((st, j) => {
        if (!st) return;
        if (st.isDirectory()) pending.push(batch[j]!);
        else total += st.size;
      });
    }
  }
  return total;
}

/**
 * Visits every entry below `dir` (not `dir` itself), a directory before what it holds, leaving out
 * the trees in `skip`. Symlinks are visited as themselves, never followed. `visit` runs for up to
 * BATCH entries at once; the walk waits for it, so it may do file-system work of its own.
 */
export async function walkBelow(dir: string, skip: ReadonlySet<string>, visit: (path: string, entry: Dirent) => Promise<void>): Promise<void> {
  const pending = [dir];
  for (let d = pending.pop(); d !== undefined; d = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      ignoreMissing(err as NodeJS.ErrnoException);
      continue;
    }
    for (let i = 0; i < entries.length; i += BATCH) {
      const batch = entries.slice(i, i + BATCH).map((e) => ({ e, path: join(d!, e.name) })).filter(({ path }) => !skip.has(path));
      await Promise.all(batch.map(({ e, path }) => visit(path, e)));
      for (const { e, path } of batch) if (e.isDirectory()) pending.push(path);
    }
  }
}

/** `rm -rf dir`: what is already gone is no error; anything else is. */
export async function removeTree(dir: string): Promise<void> {
  // A directory comes after its parent here: reversed, each is emptied before its parent goes.
  const dirs = [dir];
  await walkBelow(dir, new Set(), async (path, entry) => {
    if (entry.isDirectory()) dirs.push(path);
    else await unlink(path).catch(ignoreMissing);
  });
  for (const d of dirs.reverse()) await rmdir(d).catch(ignoreMissing);
}
