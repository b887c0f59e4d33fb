import { constants, type Dirent } from 'node:fs';
import { open, readdir, realpath, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ERRNO } from '../../errors.js';
import { childOf } from './parent-dir.js';
import { refuse } from './sandbox.js';

/*
 * The one walk every tree change goes through (delete, setperm/chown, snapshot copy and rollback).
 * Each directory is opened with O_DIRECTORY|O_NOFOLLOW through its parent's descriptor (Node has
 * no openat(): `/proc/self/fd/N/name`, see parent-dir.ts), and every entry is read, changed or
 * removed through the descriptor of the directory it was listed in. A directory swapped for a
 * symlink mid-walk then fails its open (it is a symlink, handled as one: never followed), and a
 * directory moved elsewhere is still the one held: nothing outside the tree can be reached.
 * Open descriptors are one per level of depth, never one per directory.
 */
export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Entries handled at once in one directory: the libuv pool is shared with every other client. */
export const BATCH = 16;

/** A directory held open, and its host path (for `skip` and for messages only, never for access). */
export interface HeldDir {
  handle: FileHandle;
  host: string;
}

export interface TreeVisitor {
  /** A non-directory entry, or one that is no longer a directory when opened. */
  entry?(parent: HeldDir, name: string, dirent: Dirent): Promise<void>;
  /** A directory, opened, before its contents; false leaves its contents alone. */
  enter?(dir: HeldDir, parent: HeldDir, name: string): Promise<boolean | void>;
  /** A directory after its contents, still open. */
  leave?(dir: HeldDir, parent: HeldDir, name: string): Promise<void>;
}

const gone = (err: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '');

/** The child directory `name` of `parent`, or null when it is gone or is no directory now (a symlink swapped in). */
export async function openChildDir(parent: FileHandle, name: string): Promise<FileHandle | null> {
  try {
    return await open(childOf(parent, name), DIR_FLAGS);
  } catch (err) {
    if (gone(err)) return null;
    throw err;
  }
}

const realWithins = new Map<string, string>();

/**
 * Opens the walk's root without following a symlink at its last component, then checks that what
 * was opened is the very directory `host` names inside `within` (a pool root or the snapshot
 * store, ours): a component above it swapped before the open is caught here, before anything is
 * read or changed. Null when the root does not exist (or is no longer a directory).
 */
export async function openTreeRoot(host: string, within: string): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(host, DIR_FLAGS);
  } catch (err) {
    if (gone(err)) return null;
    throw err;
  }
  try {
    let realWithin = realWithins.get(within);
    if (realWithin === undefined) realWithins.set(within, (realWithin = await realpath(within)));
    const expected = join(realWithin, relative(within, host));
    const held = await realpath(childOf(handle, '.'));
    if (held !== expected || (held !== realWithin && !held.startsWith(realWithin + sep))) {
      throw refuse(host, 'the tree moved out of place while it was opened', ERRNO.EXDEV);
    }
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

async function listHeld(dir: FileHandle): Promise<Dirent[]> {
  try {
    return await readdir(childOf(dir, '.'), { withFileTypes: true });
  } catch (err) {
    // Removed meanwhile: nothing left to visit.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Visits everything below the held directory `dir` (not `dir` itself), leaving out the host paths
 * in `skip` (child datasets' mountpoints). Non-directories are visited BATCH at a time;
 * directories one after another, depth first, so that descriptors are held per level only.
 */
export async function walkHeld(dir: HeldDir, skip: ReadonlySet<string>, visitor: TreeVisitor): Promise<void> {
  const entries = (await listHeld(dir.handle)).filter((e) => !skip.has(join(dir.host, e.name)));
  const files = entries.filter((e) => !e.isDirectory());
  for (let i = 0; i < files.length; i += BATCH) {
    await Promise.all(files.slice(i, i + BATCH).map(async (e) => visitor.entry?.(dir, e.name, e)));
  }
  for (const e of entries.filter((x) => x.isDirectory())) {
    const handle = await openChildDir(dir.handle, e.name);
    if (!handle) {
      // Swapped for a symlink (or a file) since it was listed: it is that now, and is never followed.
      await visitor.entry?.(dir, e.name, e);
      continue;
    }
    try {
      const child = { handle, host: join(dir.host, e.name) };
      if ((await visitor.enter?.(child, dir, e.name)) !== false) await walkHeld(child, skip, visitor);
      await visitor.leave?.(child, dir, e.name);
    } finally {
      await handle.close();
    }
  }
}
