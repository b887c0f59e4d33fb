import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { ERRNO } from '../../errors.js';
import { isSystemError, osError } from './os-error.js';
import { realRoot, refuse, type SandboxPath } from './sandbox.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Linux's limit on the symlinks one lookup follows. */
const MAX_LINKS = 40;

/**
 * A child of an open directory, addressed through the descriptor. Node has no openat(), so the
 * directory is named by its `/proc/self/fd` entry: the kernel resolves that to the directory the
 * descriptor holds, wherever it has moved and whatever now sits at its old path. Linux only — the
 * emulator runs there.
 */
export const childOf = (dir: FileHandle, name: string) => `/proc/self/fd/${dir.fd}/${name}`;

/**
 * Opens (making what is missing, as `os.makedirs` would) each directory from the pool root to the
 * target's parent, one component at a time and without following symlinks, so a component
 * swapped for a symlink during the walk or the write cannot send it out of the pool. A symlink
 * already there is followed only when it resolves inside the pool, by walking its real path
 * again from the root. The caller closes the handle.
 *
 * Errors are the appliance's: a parent that is a file fails the open of the target (naming it),
 * a file further up fails the makedirs of the directory below it (naming that). With `make`
 * false nothing is made: a missing component fails with ENOENT, as `os.mkdir` does.
 */
export async function openParentDir(p: SandboxPath, make = true): Promise<FileHandle> {
  const rootReal = realRoot(p.poolRoot);
  let segments = p.rest.slice(0, -1);
  let links = 0;
  let dir = await open(p.poolRoot, DIR_FLAGS);
  try {
    for (let i = 0; i < segments.length; i++) {
      const at = childOf(dir, segments[i]!);
      const shownAt = (upTo: number) => `/mnt/${p.pool}/${segments.slice(0, upTo + 1).join('/')}`;
      let next: FileHandle | 'symlink';
      try {
        next = make ? await openOrMake(at) : ((await openDir(at, false)) as FileHandle | 'symlink');
      } catch (err) {
        if (!isSystemError(err)) throw err;
        if (err.code === 'ENOTDIR') throw osError('ENOTDIR', i === segments.length - 1 ? p.path : shownAt(i + 1));
        throw osError(err.code, shownAt(i));
      }
      if (next === 'symlink') {
        const target = await realpath(at).catch(() => {
          throw refuse(p.path, 'path passes through a dangling symlink');
        });
        if (target !== rootReal && !target.startsWith(rootReal + sep)) {
          throw refuse(p.path, 'path passes through a symlink that leaves the pool', ERRNO.EXDEV);
        }
        if (++links > MAX_LINKS) throw osError('ELOOP', shownAt(i));
        segments = [...relative(rootReal, target).split(sep).filter(Boolean), ...segments.slice(i + 1)];
        next = await open(p.poolRoot, DIR_FLAGS);
        i = -1;
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (err) {
    await dir.close();
    throw err;
  }
}

/** The directory at `at`, made if missing; 'symlink' when a symlink sits there. */
async function openOrMake(at: string): Promise<FileHandle | 'symlink'> {
  const found = await openDir(at, true);
  if (found !== null) return found;
  await mkdir(at, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
    // Made by someone else in between: open whatever is there now.
    if (err.code !== 'EEXIST') throw err;
  });
  return (await openDir(at, false))!;
}

/** null when nothing is there (and `missingOk`). */
async function openDir(at: string, missingOk: boolean): Promise<FileHandle | 'symlink' | null> {
  try {
    return await open(at, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (ELOOP without O_DIRECTORY).
    if ((code === 'ENOTDIR' || code === 'ELOOP') && (await lstat(at).catch(() => null))?.isSymbolicLink())
      return 'symlink';
    if (code === 'ENOENT' && missingOk) return null;
    throw err;
  }
}
