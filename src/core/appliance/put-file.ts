import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, copyFile, lstat, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRNO, RpcError, rpcErrors } from '../errors.js';
import { setOwner } from '../store/files.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from './appliance.js';
import { sandboxPath } from './filesystem.js';
import { isSystemError, osError } from './os-error.js';
import { childOf, openParentDir } from './parent-dir.js';
import { noteUploadInFlight, uploadTempName } from './stray-uploads.js';
import type { Session } from './session.js';

export interface PutOptions {
  append: boolean;
  /** Permission bits, as a decimal integer (420 = 0o644); null keeps the default. */
  mode: number | null;
}

// Large writes in large pieces: the default 16 KiB costs a syscall per 16 KiB.
const WRITE_CHUNK = 1024 * 1024;

/**
 * How the write failed, as the appliance would say it. OS errors name the appliance target (the
 * appliance opens it directly; the temporary file beside it is ours), never a host path; the walk
 * to the parent names its own failures.
 */
function asCallError(err: unknown, shown: string): RpcError {
  if (err instanceof RpcError) return err;
  if (!isSystemError(err)) return rpcErrors.call(ERRNO.EFAULT, `Unable to put contents at '${shown}': ${err instanceof Error ? err.message : String(err)}`);
  if (err.code === 'ENOSPC') return rpcErrors.call(ERRNO.ENOSPC, `No space left on device while writing ${shown}`);
  if (err.code === 'EACCES' || err.code === 'EROFS' || err.code === 'EPERM') {
    return rpcErrors.call(ERRNO.EINVAL, `Unable to put contents at '${shown}': ${err.code}`);
  }
  return osError(err.code, shown);
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
  let forget: (() => Promise<void>) | undefined;
  let dir: FileHandle | undefined;
  let shown = path;
  try {
    const target = sandboxPath(appliance, path);
    shown = target.path;
    // The appliance's open(path, 'wb+') of a directory, the pool root included (MW/plugins/filesystem.py:565).
    if (target.rest.length === 0) throw osError('EISDIR', target.path);
    // Every later step goes through the open parent: a component swapped meanwhile cannot redirect it.
    dir = await openParentDir(target);
    const name = target.rest[target.rest.length - 1]!;
    const final = childOf(dir, name);
    const existing = await lstat(final).catch(() => null);
    if (existing?.isDirectory()) throw osError('EISDIR', target.path);
    const appending = options.append && existing?.isFile() === true;
    const tempName = uploadTempName(randomUUID());
    // Listed before it exists, so that a kill at any point leaves it findable without a tree walk.
    forget = await noteUploadInFlight(appliance.store.stateDir, appliance.store.mntDir, await realpath(childOf(dir, '.')), tempName);
    tmp = childOf(dir, tempName);
    if (appending) await copyFile(final, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await pipeline(
      source,
      createWriteStream(tmp, { flags: appending ? 'a' : 'wx', mode: 0o600, highWaterMark: WRITE_CHUNK, flush: true }),
    );
    await commit;
    // `if mode: os.chmod(path, mode)` upstream: null and 0 both leave the file's mode alone.
    const mode = options.mode || (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
    await chmod(tmp, mode);
    await rename(tmp, final);
    tmp = undefined;
    await dir.sync();
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
    throw asCallError(err, shown);
  } finally {
    if (tmp) await unlink(tmp).catch(() => undefined);
    await forget?.();
    await dir?.close();
  }
}
