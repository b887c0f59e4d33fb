import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRNO, RpcError, errnameOf, rpcErrors } from '../errors.js';
import { setOwner } from '../store/files.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from './appliance.js';
import { sandboxPath } from './filesystem.js';
import { assertInsidePool } from './sandbox.js';
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

function asCallError(err: unknown, path: string): RpcError {
  if (err instanceof RpcError) return err;
  const e = err as NodeJS.ErrnoException;
  const errno = typeof e.errno === 'number' ? Math.abs(e.errno) : ERRNO.EFAULT;
  if (e.code === 'ENOSPC') return rpcErrors.call(28, `No space left on device while writing ${path}`);
  if (e.code === 'EACCES' || e.code === 'EROFS' || e.code === 'EPERM') {
    return rpcErrors.call(ERRNO.EINVAL, `Unable to put contents at '${path}': ${e.code}`);
  }
  const known = errnameOf(errno) !== 'EUNKNOWN' ? errno : ERRNO.EFAULT;
  return rpcErrors.call(known, `Unable to put contents at '${path}': ${e.message ?? String(err)}`);
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
  let shown = path;
  try {
    const p = sandboxPath(appliance, path);
    shown = p.path;
    if (p.rest.length === 0) throw rpcErrors.call(ERRNO.EISDIR, `${p.path} is the pool root, not a file`);
    const existing = await lstat(p.host).catch(() => null);
    if (existing?.isDirectory()) throw rpcErrors.call(ERRNO.EISDIR, `${p.path} is a directory`);
    await mkdir(dirname(p.host), { recursive: true, mode: 0o755 });
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
    const mode = options.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
    await chmod(tmp, mode);
    await rename(tmp, p.host);
    tmp = undefined;
    await fsyncPath(dirname(p.host));
    const { store } = appliance;
    store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const user = accounts.users.find((u) => u.id === session.credentials?.userId);
      const gid = user ? (accounts.groupById.get(user.group_id)?.gid ?? 0) : 0;
      setOwner(store.db, p.pool, p.rest.join('/'), { uid: user?.uid ?? 0, gid });
    });
    return true;
  } catch (err) {
    source.resume(); // let the rest of the request drain so its answer can be sent
    throw asCallError(err, shown);
  } finally {
    if (tmp) await unlink(tmp).catch(() => undefined);
  }
}
