import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IO } from './io.js';

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
