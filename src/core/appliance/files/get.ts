import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ERRNO, RpcError, rpcErrors } from '../../errors.js';
import type { Appliance } from '../appliance.js';
import type { OutputPipe } from '../jobs/downloads.js';
import { placeOf, sandboxPath } from './places.js';
import { childOf, openParentDir } from './parent-dir.js';
import { osError } from './os-error.js';
import { realRoot } from './sandbox.js';

const CHUNK = 1024 * 1024;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `CallError(f'{path} is not a file')` (MW/plugins/filesystem.py:543-544): errno EFAULT. */
const notAFile = (path: string) => rpcErrors.call(ERRNO.EFAULT, `${path} is not a file`);

/**
 * Opens the regular file at appliance path `path` for reading, as `os.path.isfile` then `open`
 * would, but inside the sandbox: a final symlink is followed only to a file in the same pool,
 * every directory on the way is opened without following symlinks, and the file itself with
 * O_NOFOLLOW, so nothing swapped in meanwhile leads out of the pool.
 */
export async function openFileForRead(appliance: Appliance, path: string): Promise<FileHandle> {
  if (placeOf(appliance, path).kind !== 'pool') throw notAFile(path);
  let target = sandboxPath(appliance, path);
  if (target.rest.length === 0) throw notAFile(path);
  const real = await realpath(target.host).catch(() => null);
  if (real === null) throw notAFile(path);
  const root = realRoot(target.poolRoot);
  if (!real.startsWith(root + sep)) throw notAFile(path);
  // 26 opens it with safe_open (openat2 RESOLVE_NO_SYMLINKS) once os.path.isfile passed: a symlink
  // on the way is ELOOP (stable/26 MW/plugins/filesystem.py:571-575).
  if (appliance.release.noSymlinkPaths && real !== join(root, ...target.rest)) throw osError('ELOOP', path);
  // A symlink resolved inside the pool: read what it points to, walked again from the pool root.
  if (real !== join(root, ...target.rest))
    target = sandboxPath(appliance, `/mnt/${target.pool}${real.slice(root.length)}`);
  let dir: FileHandle;
  try {
    dir = await openParentDir(target, false);
  } catch (err) {
    if (
      err instanceof RpcError &&
      (err.data?.trace?.class === 'FileNotFoundError' || err.data?.trace?.class === 'NotADirectoryError')
    )
      throw notAFile(path);
    throw err;
  }
  try {
    const file = await open(childOf(dir, target.rest[target.rest.length - 1]!), FILE_FLAGS).catch(() => {
      throw notAFile(path);
    });
    if (!(await file.stat()).isFile()) {
      await file.close();
      throw notAFile(path);
    }
    return file;
  } finally {
    await dir.close();
  }
}

/** BrokenPipeError, as `shutil.copyfileobj` raises it when the reader went away or never came. */
const brokenPipe = () =>
  rpcErrors.exception('BrokenPipeError', '[Errno 32] Broken pipe', "BrokenPipeError(32, 'Broken pipe')");

/**
 * `filesystem.get` (MW/plugins/filesystem.py:537-548) writing into its output pipe: straight into
 * the reader when unbuffered, else into a spool file beside the state for the GET to stream.
 */
export async function getIntoPipe(appliance: Appliance, path: string, pipe: OutputPipe): Promise<null> {
  const file = await openFileForRead(appliance, path);
  try {
    const source = file.createReadStream({ highWaterMark: CHUNK, autoClose: false });
    if (pipe.buffered) {
      const dir = join(appliance.store.stateDir, 'downloads');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const spool = join(dir, `${randomUUID()}.spool`);
      await pipeline(source, createWriteStream(spool, { flags: 'wx', mode: 0o600, highWaterMark: CHUNK }));
      pipe.spool = spool;
      return null;
    }
    const reader = await pipe.readerOrClosed();
    if (reader === null) throw brokenPipe();
    await pipeline(source, reader).catch(() => {
      throw brokenPipe();
    });
    return null;
  } finally {
    await file.close();
  }
}
