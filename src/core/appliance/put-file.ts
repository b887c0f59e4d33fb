import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRNO, RpcError, rpcErrors } from '../errors.js';
import { setOwner } from '../store/files.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from './appliance.js';
import { sandboxPath } from './filesystem.js';
import { isSystemError, osError } from './os-error.js';
import { appliancePathOf, assertInsidePool, type SandboxPath } from './sandbox.js';
import { uploadTempName } from './stray-uploads.js';
import type { Session } from './session.js';

export interface PutOptions {
  append: boolean;
  /** Permission bits, as a decimal integer (420 = 0o644); null keeps the default. */
  mode: number | null;
}

// Large writes in large pieces: the default 16 KiB costs a syscall per 16 KiB.
const WRITE_CHUNK = 1024 * 1024;

async function fsyncPath(path: string, flags = 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * How the write failed, as the appliance would say it. OS errors name the appliance path: the
 * target itself for the temporary file beside it (the appliance opens the target directly), the
 * directory it failed to make for the parents; never a host path.
 */
function asCallError(err: unknown, p: SandboxPath | null, shown: string, tmp: string | undefined, mntDir: string): RpcError {
  if (err instanceof RpcError) return err;
  if (!isSystemError(err)) return rpcErrors.call(ERRNO.EFAULT, `Unable to put contents at '${shown}': ${err instanceof Error ? err.message : String(err)}`);
  if (err.code === 'ENOSPC') return rpcErrors.call(ERRNO.ENOSPC, `No space left on device while writing ${shown}`);
  if (err.code === 'EACCES' || err.code === 'EROFS' || err.code === 'EPERM') {
    return rpcErrors.call(ERRNO.EINVAL, `Unable to put contents at '${shown}': ${err.code}`);
  }
  const inPool = p !== null && err.path !== undefined && err.path !== tmp && err.path.startsWith(p.poolRoot + sep);
  return osError(err.code, inPool ? appliancePathOf(mntDir, err.path!) : shown);
}

/**
 * Makes the target's missing parents as `os.makedirs` would (MW/plugins/filesystem.py:556-558):
 * nothing when the parent exists, whatever it is (a file there fails the open, naming the
 * target); else each level, failing on the first one that cannot be made.
 */
async function makeParents(p: SandboxPath): Promise<void> {
  const parent = dirname(p.host);
  if (await stat(parent).catch(() => null)) return;
  let dir = p.poolRoot;
  for (const segment of p.rest.slice(0, -1)) {
    dir = join(dir, segment);
    await mkdir(dir, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/**
 * `filesystem.put`: streams `source` into a temporary file beside the target, waits for `commit`
 * (the upload endpoint resolves it when the request ended well), fsyncs, applies the mode and
 * renames into place. Any failure — a broken request, a full disk, a client gone — removes the
 * temporary file and leaves the target as it was.
 */
export async function putFile(
  appliance: Appliance,
  session: Session,
  path: string,
  options: PutOptions,
  source: Readable,
  commit: Promise<void>,
): Promise<true> {
  let tmp: string | undefined;
  let p: SandboxPath | null = null;
  let shown = path;
  try {
    const target = sandboxPath(appliance, path);
    p = target;
    shown = p.path;
    // The appliance's open(path, 'wb+') of a directory, the pool root included (MW/plugins/filesystem.py:565).
    if (p.rest.length === 0) throw osError('EISDIR', p.path);
    const existing = await lstat(p.host).catch(() => null);
    if (existing?.isDirectory()) throw osError('EISDIR', p.path);
    await makeParents(p);
    assertInsidePool(p); // again, now that the parents exist
    tmp = join(dirname(p.host), uploadTempName(randomUUID()));
    if (options.append && existing?.isFile()) {
      await copyFile(p.host, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    }
    await pipeline(
      source,
      createWriteStream(tmp, {
        flags: options.append && existing?.isFile() ? 'a' : 'wx',
        mode: 0o600,
        highWaterMark: WRITE_CHUNK,
        flush: true,
      }),
    );
    await commit;
    // `if mode: os.chmod(path, mode)` upstream: null and 0 both leave the file's mode alone.
    const mode = options.mode || (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
    await chmod(tmp, mode);
    await rename(tmp, p.host);
    tmp = undefined;
    await fsyncPath(dirname(p.host));
    const { store } = appliance;
    store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const user = accounts.users.find((u) => u.id === session.credentials?.userId);
      const gid = user ? (accounts.groupById.get(user.group_id)?.gid ?? 0) : 0;
      setOwner(store.db, target.pool, target.rest.join('/'), { uid: user?.uid ?? 0, gid });
    });
    return true;
  } catch (err) {
    source.resume(); // let the rest of the request drain so its answer can be sent
    throw asCallError(err, p, shown, tmp, appliance.store.mntDir);
  } finally {
    if (tmp) await unlink(tmp).catch(() => undefined);
  }
}
