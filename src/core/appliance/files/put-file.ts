import { randomUUID } from 'node:crypto';
import { constants, createReadStream, createWriteStream, type Stats } from 'node:fs';
import { chmod, copyFile, lstat, open, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRNO, RpcError, rpcErrors } from '../../errors.js';
import { setOwner } from '../../store/files.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import type { Appliance } from '../appliance.js';
import { assertNotBeingDeleted } from '../datasets/deletion.js';
import { sandboxPath } from './places.js';
import { realRoot } from './sandbox.js';
import { keyedQueue } from './keyed-queue.js';
import { withPathLock } from './path-lock.js';
import { isSystemError, osError } from './os-error.js';
import { childOf, openParentDir } from './parent-dir.js';
import { noteUploadInFlight, uploadTempName } from '../jobs/stray-uploads.js';
import type { Session } from '../session/session.js';

export interface PutOptions {
  append: boolean;
  /** Permission bits, as a decimal integer (420 = 0o644); null keeps the default. */
  mode: number | null;
}

/** Puts to one path, from the end of their bytes to their rename (see putFile). */
const onePutAtATime = keyedQueue();

/**
 * The target as it is now, opened without following a symlink (the file an append joins), or null
 * when nothing (or a symlink, which a put replaces) is there.
 */
async function openExisting(at: string): Promise<{ handle: FileHandle; stat: Stats } | null> {
  let handle: FileHandle;
  try {
    handle = await open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return null;
    throw err;
  }
  try {
    return { handle, stat: await handle.stat() };
  } catch (err) {
    await handle.close();
    throw err;
  }
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
  if (!isSystemError(err))
    return rpcErrors.call(
      ERRNO.EFAULT,
      `Unable to put contents at '${shown}': ${err instanceof Error ? err.message : String(err)}`,
    );
  if (err.code === 'ENOSPC') return rpcErrors.call(ERRNO.ENOSPC, `No space left on device while writing ${shown}`);
  if (err.code === 'EACCES' || err.code === 'EROFS' || err.code === 'EPERM') {
    return rpcErrors.call(ERRNO.EINVAL, `Unable to put contents at '${shown}': ${err.code}`);
  }
  return osError(err.code, shown);
}

/**
 * `filesystem.put`: streams `source` into a temporary file beside the target, waits for `commit`
 * (the upload endpoint resolves it when the request ended well), then, in turn with the other puts
 * to the same path, joins an append onto a copy of the file as it is now, applies the mode and
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
  const forgets: (() => Promise<void>)[] = [];
  const temps: string[] = [];
  let dir: FileHandle | undefined;
  let shown = path;
  try {
    const target = sandboxPath(appliance, path);
    shown = target.path;
    const refuseIfBeingDeleted = () =>
      assertNotBeingDeleted(appliance, target.path, `Unable to put contents at '${target.path}'`);
    refuseIfBeingDeleted();
    // The appliance's open(path, 'wb+') of a directory, the pool root included (MW/plugins/filesystem.py:565).
    if (target.rest.length === 0) throw osError('EISDIR', target.path);
    // Every later step goes through the open parent: a component swapped meanwhile cannot redirect it.
    dir = await openParentDir(target);
    const name = target.rest[target.rest.length - 1]!;
    const final = childOf(dir, name);
    const existingEntry = await lstat(final).catch(() => null);
    if (existingEntry?.isDirectory()) throw osError('EISDIR', target.path);
    const realDir = await realpath(childOf(dir, '.'));
    // 26 writes through safe_open (openat2 RESOLVE_NO_SYMLINKS): a symlink at the target or on the
    // way to it is ELOOP, after os.makedirs made the missing parents (stable/26 MW/plugins/filesystem.py:595-610).
    if (
      appliance.release.noSymlinkPaths &&
      (existingEntry?.isSymbolicLink() || realDir !== join(realRoot(target.poolRoot), ...target.rest.slice(0, -1)))
    ) {
      throw osError('ELOOP', target.path);
    }
    const note = async () => {
      const tempName = uploadTempName(randomUUID());
      // Listed before it exists, so that a kill at any point leaves it findable without a tree walk.
      forgets.push(await noteUploadInFlight(appliance.store.stateDir, appliance.store.mntDir, realDir, tempName));
      temps.push(childOf(dir!, tempName));
      return childOf(dir!, tempName);
    };
    let tmp = await note();
    await pipeline(
      source,
      createWriteStream(tmp, { flags: 'wx', mode: 0o600, highWaterMark: WRITE_CHUNK, flush: true }),
    );
    await commit;
    // The bytes are all here; what is left is local and short. Puts to one path take turns from
    // here to the rename, so that an append joins the file as the previous put left it: two
    // appends at once both land, whole (upstream opens the target 'ab', MW/plugins/filesystem.py:559-566).
    // Between processes too: every embedded `stor` is one, on the same state (path-lock.ts).
    await onePutAtATime(appliance, join(realDir, name), () =>
      withPathLock(appliance.store.stateDir, join(realDir, name), target.path, async () => {
        const existing = await openExisting(final);
        try {
          if (existing?.stat.isDirectory()) throw osError('EISDIR', target.path);
          if (options.append && existing?.stat.isFile()) {
            const received = tmp;
            tmp = await note();
            // Copied through the descriptor opened without following: a symlink swapped in is never read.
            await copyFile(
              `/proc/self/fd/${existing.handle.fd}`,
              tmp,
              constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE,
            );
            await pipeline(
              createReadStream(received),
              createWriteStream(tmp, { flags: 'a', highWaterMark: WRITE_CHUNK, flush: true }),
            );
            await unlink(received);
          }
          // `if mode: os.chmod(path, mode)` upstream: null and 0 both leave the file's mode alone.
          const mode = options.mode || (existing?.stat.isFile() ? existing.stat.mode & 0o7777 : 0o644);
          await chmod(tmp, mode);
          // Checked again right before the file appears: a delete that started meanwhile wins.
          refuseIfBeingDeleted();
          await rename(tmp, final);
          await dir!.sync();
        } finally {
          await existing?.handle.close();
        }
      }),
    );
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
    // Whatever temporary file is left (the received bytes of an append, a half-joined copy) goes;
    // one renamed into place is no longer there under its temporary name.
    for (const left of temps) await unlink(left).catch(() => undefined);
    for (const forget of forgets) await forget();
    await dir?.close();
  }
}
