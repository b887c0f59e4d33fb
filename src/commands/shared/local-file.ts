import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { IO } from '../output/io.js';

/*
 * Files and directories stor creates on the user's side (a download, a tree copied down, a file
 * named with -o): their modes are those the caller's umask allows, as any program's are.
 *
 * In the session agent the command's caller is another process (docs/SESSIONS.md): its umask
 * comes with the run request (IO.umask), and the agent's own may be anything (that of whichever
 * command started it). The agent runs several commands at once, and process.umask() is one value
 * for the whole process: setting it per command would hand one command's umask to another's files
 * (and to the agent's own socket and state). So nothing here relies on the process's umask: each
 * entry is created owner-only (0600, 0700, whatever the process's umask: it can only take bits
 * away), then given exactly the mode the caller's umask leaves, with chmod. It is never wider than
 * that on its way there, so a secret downloaded under umask 077 is never readable by others.
 */

/** The umask a command's files are made under: its caller's (IO.umask), else this process's own. */
export function umaskOf(io: Pick<IO, 'umask'>): number {
  return io.umask ?? process.umask();
}

/**
 * Creates `path` for writing, exclusively (an existing file, or a symbolic link someone placed
 * there, is an EEXIST: never followed), with mode `mode` less `umask`.
 */
export async function createFile(path: string, umask: number, mode = 0o666): Promise<FileHandle> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.chmod(mode & ~umask);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw err;
  }
  return handle;
}

/** `mkdir -p dir` under `umask`: each directory it makes gets 0777 less the umask; existing ones are left as they are. */
export function makeDirectories(dir: string, umask: number): void {
  const missing: string[] = [];
  for (let d = dir; lstatSync(d, { throwIfNoEntry: false }) === undefined; d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, 0o700);
    } catch (err) {
      // Made by someone else meanwhile: theirs, left as it is (mkdir -p does the same).
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    chmodSync(d, 0o777 & ~umask);
  }
}

export function localWriteFailed(path: string, err: unknown): StorError {
  if (err instanceof StorError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new StorError(E.LOCAL_WRITE_FAILED, `cannot write ${path}: ${code}`, {
    hint: 'check that the directory exists, is writable and has space',
  });
}

/** A temporary file's name beside `dest`: hidden, and saying whose it is. */
export const besideName = (dest: string): string =>
  join(dirname(dest), `.${basename(dest)}.stor-${randomBytes(4).toString('hex')}.part`);

/**
 * Writes `dest` by replacing it, never through it: `fill` writes a new file made beside it
 * (createFile: exclusive, `mode` less `umask`), which is then renamed over `dest`. rename()
 * replaces the directory entry whatever it is, so a symbolic link planted at `dest` (another
 * user's, in a sticky /tmp) is replaced, not followed, and a reader never sees half a file. On
 * any failure the temporary file goes and `dest` is as it was. Every local file stor writes at a
 * path the user names, and may replace, is written here (download, download -r, privilege
 * suggest -o). Errors of the file system are LOCAL_WRITE_FAILED naming `dest`; `fill`'s own pass.
 */
export async function replaceFile<T>(
  dest: string,
  umask: number,
  fill: (handle: FileHandle) => Promise<T>,
  options: { mode?: number; temporary?: string } = {},
): Promise<T> {
  const temporary = options.temporary ?? besideName(dest);
  let handle: FileHandle;
  try {
    handle = await createFile(temporary, umask, options.mode);
  } catch (err) {
    throw localWriteFailed(dest, err);
  }
  try {
    const filled = await fill(handle);
    await handle.close();
    await rename(temporary, dest).catch((err: unknown) => Promise.reject(localWriteFailed(dest, err)));
    return filled;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw err;
  }
}

/**
 * Writes `data` to `path`, a new file (`mode` less `umask`); with `replace`, over whatever is
 * there (replaceFile), else refusing an existing path, a dangling link included (EEXIST, which
 * the caller words), with nothing written.
 */
export async function writeNewFile(
  path: string,
  data: string,
  umask: number,
  options: { mode?: number; replace: boolean },
): Promise<void> {
  const write = (handle: FileHandle) => handle.writeFile(data);
  if (options.replace) return replaceFile(path, umask, write, { mode: options.mode ?? 0o666 });
  const handle = await createFile(path, umask, options.mode);
  try {
    await write(handle);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw localWriteFailed(path, err);
  }
  await handle.close();
}
