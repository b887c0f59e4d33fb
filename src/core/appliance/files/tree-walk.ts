import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BATCH, openChildDir, openTreeRoot, walkHeld, type HeldDir } from './held-walk.js';
import { childOf } from './parent-dir.js';

/**
 * Walks of whole dataset trees, asynchronous so that a large tree holds up no other client. Each
 * step takes at most BATCH (held-walk.ts) file-system calls at once: the libuv thread pool is shared with the
 * WebSocket's compression, so flooding it would stall every other client's answers just the same.
 * Symlinks are never followed.
 */

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
 * the trees in `skip`. `visit` gets the entry's host path (for records and messages) and `at`, the
 * path to act on: through the descriptor of the directory it was listed in, so a directory
 * swapped for a symlink mid-walk cannot lead the walk out of `within` (held-walk.ts). Symlinks are
 * visited as themselves, never followed. `visit` runs for up to BATCH entries at once.
 */
export async function walkBelow(
  dir: string,
  within: string,
  skip: ReadonlySet<string>,
  visit: (host: string, at: string) => Promise<void>,
): Promise<void> {
  const root = await openTreeRoot(dir, within);
  if (!root) return;
  try {
    await walkHeld({ handle: root, host: dir }, skip, {
      entry: (parent, name) => visit(join(parent.host, name), childOf(parent.handle, name)),
      enter: (_dir, parent, name) => visit(join(parent.host, name), childOf(parent.handle, name)),
    });
  } finally {
    await root.close();
  }
}

/** Removes everything below the held directory. */
async function emptyHeld(dir: HeldDir): Promise<void> {
  await walkHeld(dir, new Set(), {
    entry: (parent, name) => removeEntry(parent, name),
    leave: (_dir, parent, name) => rmdir(childOf(parent.handle, name)).catch(ignoreMissing),
  });
}

/**
 * Removes the entry `name` of a held directory: a symlink or file is unlinked (a symlink itself,
 * never what it points to); one that became a directory again since it was listed is emptied
 * through its own descriptor first.
 */
export async function removeEntry(parent: HeldDir, name: string): Promise<void> {
  try {
    await unlink(childOf(parent.handle, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'EISDIR' && code !== 'EPERM') throw err;
    const handle = await openChildDir(parent.handle, name);
    if (!handle) return removeEntry(parent, name);
    try {
      await emptyHeld({ handle, host: join(parent.host, name) });
    } finally {
      await handle.close();
    }
    await rmdir(childOf(parent.handle, name)).catch(ignoreMissing);
  }
}

/**
 * `rm -rf dir`, for a tree inside `within` (a pool root or the snapshot store): what is already
 * gone is no error; anything else is. Every removal goes through the descriptor of the directory
 * it is in, so nothing outside the tree can be removed whatever is swapped in meanwhile; `dir`
 * itself goes last, through its parent opened and checked as the root is: by its path, a parent
 * swapped for a symlink (a child dataset's mountpoint inside its parent's) would have led the
 * rmdir to an empty directory of the same name outside the pool.
 */
export async function removeTree(dir: string, within: string): Promise<void> {
  const root = await openTreeRoot(dir, within);
  if (root) {
    try {
      await emptyHeld({ handle: root, host: dir });
    } finally {
      await root.close();
    }
  }
  const parent = await openTreeRoot(dirname(dir), within);
  // The parent gone (or no longer a directory): so is `dir`.
  if (!parent) return;
  try {
    await rmdir(childOf(parent, basename(dir))).catch(ignoreMissing);
  } finally {
    await parent.close();
  }
}
