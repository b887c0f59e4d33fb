import { constants, type Dirent } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readlink, symlink, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from './tree-walk.js';

/*
 * Point-in-time copies of a dataset's files, for snapshots. Files are cloned where the file system
 * can (reflinks on btrfs/XFS: instant and sharing blocks), else copied; never hard-linked, since
 * a later append would change the snapshot too. Modes and times are kept; symlinks are copied as
 * links and never followed. Like tree-walk.ts, every step is asynchronous and takes at most BATCH
 * file-system calls at once, so a large tree holds up no other client.
 */
const BATCH = 16;

async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(fn));
}

async function listDir(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Copies one non-directory entry, its mode and times with it. */
async function copyEntry(from: string, to: string): Promise<number> {
  const st = await lstat(from);
  if (st.isSymbolicLink()) {
    await symlink(await readlink(from), to);
    return 0;
  }
  // Sockets, FIFOs and devices are not data a snapshot can carry here.
  if (!st.isFile()) return 0;
  await copyFile(from, to, constants.COPYFILE_FICLONE);
  await chmod(to, st.mode & 0o7777);
  await utimes(to, st.atime, st.mtime);
  return st.size;
}

/** Gives `to` the mode and times of directory `from` (after its contents, which change the times). */
async function copyDirAttributes(from: string, to: string): Promise<void> {
  const st = await lstat(from);
  await chmod(to, st.mode & 0o7777);
  await utimes(to, st.atime, st.mtime);
}

/**
 * Copies the tree `from` into the new directory `to`, leaving out the trees in `skip` (child
 * datasets' mountpoints, which their own snapshots cover). Returns the bytes of the files copied.
 */
export async function copyTree(from: string, to: string, skip: ReadonlySet<string>): Promise<number> {
  let bytes = 0;
  await mkdir(to, { recursive: true, mode: 0o700 });
  const dirs: [string, string][] = [];
  const pending: [string, string][] = [[from, to]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [src, dst] = pair;
    dirs.push(pair);
    const entries = (await listDir(src)).filter((e) => !skip.has(join(src, e.name)));
    await inBatches(entries, async (e) => {
      const s = join(src, e.name);
      const d = join(dst, e.name);
      if (e.isDirectory()) {
        await mkdir(d, { mode: 0o700 });
        pending.push([s, d]);
      } else {
        bytes += await copyEntry(s, d);
      }
    });
  }
  for (const [src, dst] of dirs.reverse()) await copyDirAttributes(src, dst).catch(() => undefined);
  return bytes;
}

/**
 * Makes the tree `live` what the copy `snapshot` holds, as `zfs rollback` does: every file's bytes,
 * mode and times as they were, and whatever was created since removed. The trees in `skip` (child
 * datasets' mountpoints) are left alone. Entries are replaced, never written through, so a symlink
 * planted in the live tree is removed rather than followed.
 */
export async function restoreTree(snapshot: string, live: string, skip: ReadonlySet<string>): Promise<void> {
  await mkdir(live, { recursive: true });
  const dirs: [string, string][] = [];
  const pending: [string, string][] = [[snapshot, live]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [src, dst] = pair;
    dirs.push(pair);
    const wanted = new Map((await listDir(src)).map((e) => [e.name, e]));
    const present = (await listDir(dst)).filter((e) => !skip.has(join(dst, e.name)));
    // What the snapshot lacks goes, and so does what changed its type (a file now a directory, …).
    const gone = present.filter((e) => {
      const w = wanted.get(e.name);
      return !w || !(w.isDirectory() && e.isDirectory());
    });
    await inBatches(gone, (e) => (e.isDirectory() ? removeTree(join(dst, e.name)) : unlink(join(dst, e.name))));
    const kept = new Set(present.filter((e) => !gone.includes(e)).map((e) => e.name));
    await inBatches([...wanted.values()], async (e) => {
      const s = join(src, e.name);
      const d = join(dst, e.name);
      if (skip.has(d)) return;
      if (e.isDirectory()) {
        if (!kept.has(e.name)) await mkdir(d, { mode: 0o700 });
        pending.push([s, d]);
      } else {
        await copyEntry(s, d);
      }
    });
  }
  for (const [src, dst] of dirs.reverse()) await copyDirAttributes(src, dst).catch(() => undefined);
}
