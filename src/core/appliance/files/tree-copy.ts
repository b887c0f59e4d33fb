import { constants, type Dirent, type Stats } from 'node:fs';
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  symlink,
  utimes,
  type FileHandle,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ERRNO } from '../../errors.js';
import { BATCH, openChildDir, openTreeRoot, walkHeld, type HeldDir } from './held-walk.js';
import { childOf } from './parent-dir.js';
import { refuse } from './sandbox.js';
import { removeEntry } from './tree-walk.js';

/*
 * Point-in-time copies of a dataset's files, for snapshots. Files are cloned where the file system
 * can (reflinks on btrfs/XFS: instant and sharing blocks), else copied; never hard-linked, since
 * a later append would change the snapshot too. Modes and times are kept; symlinks are copied as
 * links and never followed. Like tree-walk.ts, every step is asynchronous and takes at most BATCH
 * file-system calls at once, so a large tree holds up no other client.
 */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(fn));
}

/** Linux's O_PATH: a handle on the inode itself, which needs no read permission. */
const O_PATH = 0o10000000;

/**
 * Copies one non-directory entry, `from` addressed through its held parent, its mode and times
 * with it. It is opened without following a symlink and copied through that descriptor, so a
 * symlink swapped in after the listing is copied as a link, never read through. Gone meanwhile:
 * nothing to copy.
 */
async function copyEntry(from: string, to: string): Promise<number> {
  let source: FileHandle;
  try {
    source = await open(from, O_PATH | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  try {
    const st = await source.stat();
    if (st.isSymbolicLink()) {
      await symlink(await readlink(from), to);
      return 0;
    }
    // Sockets, FIFOs and devices are not data a snapshot can carry here.
    if (!st.isFile()) return 0;
    // EXCL: a symlink planted at `to` fails the copy rather than being written through.
    await copyFile(`/proc/self/fd/${source.fd}`, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await setAttributes(to, st);
    return st.size;
  } finally {
    await source.close();
  }
}

/** Gives the entry at `to` (not followed) the mode and times in `st`. */
async function setAttributes(to: string, st: Stats): Promise<void> {
  const target = await open(to, O_PATH | constants.O_NOFOLLOW);
  try {
    const at = `/proc/self/fd/${target.fd}`;
    await chmod(at, st.mode & 0o7777);
    await utimes(at, st.atime, st.mtime);
  } finally {
    await target.close();
  }
}

/**
 * Copies the tree `from` (inside `within`, a pool root's parent) into the new directory `to`,
 * leaving out the trees in `skip` (child datasets' mountpoints, which their own snapshots cover).
 * The live tree is read through held descriptors (held-walk.ts): a directory swapped for a
 * symlink mid-copy is copied as that symlink, never read through. Returns the bytes copied.
 */
export async function copyTree(from: string, within: string, to: string, skip: ReadonlySet<string>): Promise<number> {
  let bytes = 0;
  await mkdir(to, { recursive: true, mode: 0o700 });
  const root = await openTreeRoot(from, within);
  if (!root) return 0;
  const dstOf = (host: string) => join(to, relative(from, host));
  try {
    await walkHeld({ handle: root, host: from }, skip, {
      entry: async (parent, name) => {
        bytes += await copyEntry(childOf(parent.handle, name), join(dstOf(parent.host), name));
      },
      enter: async (dir) => {
        await mkdir(dstOf(dir.host), { mode: 0o700 });
      },
      // After its contents, which change the times.
      leave: async (dir) => setAttributes(dstOf(dir.host), await dir.handle.stat()),
    });
    await setAttributes(to, await root.stat());
  } finally {
    await root.close();
  }
  return bytes;
}

async function listDir(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Makes the live directory held in `dst` what the snapshot's directory `src` holds. Every change
 * goes through `dst`'s descriptor: an entry is replaced, never written through, and a directory
 * is entered only by opening it without following a symlink, so nothing planted or swapped in the
 * live tree leads the restore out of it.
 */
async function restoreHeld(src: string, dst: HeldDir, skip: ReadonlySet<string>): Promise<void> {
  const wanted = new Map((await listDir(src)).map((e) => [e.name, e]));
  const present = (await listDir(childOf(dst.handle, '.'))).filter((e) => !skip.has(join(dst.host, e.name)));
  // What the snapshot lacks goes, and so does what changed its type (a file now a directory, …).
  const gone = present.filter((e) => {
    const w = wanted.get(e.name);
    return !w || !(w.isDirectory() && e.isDirectory());
  });
  await inBatches(gone, (e) => removeEntry(dst, e.name));
  const kept = new Set(present.filter((e) => !gone.includes(e)).map((e) => e.name));
  const entries = [...wanted.values()].filter((e) => !skip.has(join(dst.host, e.name)));
  await inBatches(
    entries.filter((e) => !e.isDirectory()),
    (e) => copyEntry(join(src, e.name), childOf(dst.handle, e.name)),
  );
  for (const e of entries.filter((x) => x.isDirectory())) {
    const at = childOf(dst.handle, e.name);
    if (!kept.has(e.name)) await mkdir(at, { mode: 0o700 });
    let handle = await openChildDir(dst.handle, e.name);
    if (!handle) {
      // Swapped for a symlink since it was listed: the link goes, the directory is made anew.
      await removeEntry(dst, e.name);
      await mkdir(at, { mode: 0o700 });
      handle = await openChildDir(dst.handle, e.name);
      if (!handle)
        throw refuse(join(dst.host, e.name), 'the directory keeps being replaced during the rollback', ERRNO.EXDEV);
    }
    try {
      await restoreHeld(join(src, e.name), { handle, host: join(dst.host, e.name) }, skip);
    } finally {
      await handle.close();
    }
  }
  await setAttributes(childOf(dst.handle, '.'), await lstat(src));
}

/**
 * Makes the tree `live` (inside `within`) what the copy `snapshot` holds, as `zfs rollback` does:
 * every file's bytes, mode and times as they were, and whatever was created since removed. The
 * trees in `skip` (child datasets' mountpoints) are left alone.
 */
export async function restoreTree(
  snapshot: string,
  live: string,
  within: string,
  skip: ReadonlySet<string>,
): Promise<void> {
  await mkdir(live, { recursive: true });
  const root = await openTreeRoot(live, within);
  if (!root) throw refuse(live, "the dataset's mountpoint is not a directory", ERRNO.ENOTDIR);
  try {
    await restoreHeld(snapshot, { handle: root, host: live }, skip);
  } finally {
    await root.close();
  }
}
