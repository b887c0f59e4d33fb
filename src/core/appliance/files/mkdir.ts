import { chmod, lstat, mkdir, realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import type { z } from 'zod';
import type { filesystemMkdir } from '../../contract/filesystem.js';
import { ERRNO, RpcError, rpcErrors } from '../../errors.js';
import { setOwner } from '../../store/files.js';
import type { Appliance } from '../appliance.js';
import { ROOT, placeOf } from './places.js';
import { isSystemError, osError } from './os-error.js';
import { childOf, openParentDir } from './parent-dir.js';
import { appliancePathOf } from './sandbox.js';
import { unixPermBits } from './unix-perm.js';
import type { DirEntry } from './stat.js';

type MkdirArgs = z.output<ReturnType<typeof filesystemMkdir>>;

/**
 * `filesystem.mkdir` (MW/plugins/filesystem.py:226-293): one directory, whose parent must exist
 * (no `parents`), made with `options.mode` whatever the umask, owned by root (the middleware
 * runs as root). Answers the new directory as a listdir entry; `path` is echoed as given.
 */
export async function makeDirectory(appliance: Appliance, { path, options }: MkdirArgs): Promise<DirEntry> {
  const mode = unixPermBits(options.mode);
  if (!path.startsWith('/')) throw rpcErrors.call(ERRNO.EINVAL, `${path}: not an absolute path.`);
  const place = placeOf(appliance, path);
  if (place.kind === 'root' || place.kind === 'mnt')
    throw rpcErrors.call(ERRNO.EEXIST, `${path}: path already exists.`);
  if (place.kind === 'missing') {
    // Only / and /mnt exist outside the pools; below /mnt a missing pool is a missing parent.
    const underMnt = path.split('/').filter((s) => s !== '' && s !== '.')[0] === 'mnt';
    if (underMnt) throw osError('ENOENT', path);
    throw rpcErrors.call(ERRNO.EPERM, `${path}: path not permitted`);
  }
  const target = place.p;
  if (target.rest.length === 0 || (await lstat(target.host).catch(() => null)))
    throw rpcErrors.call(ERRNO.EEXIST, `${path}: path already exists.`);
  const dir = await openParentDir(target, false).catch((err: unknown) => {
    // os.mkdir names the path it was given, whichever component was missing or not a directory.
    const cls = err instanceof RpcError ? err.data?.trace?.class : undefined;
    if (cls === 'FileNotFoundError') throw osError('ENOENT', path);
    if (cls === 'NotADirectoryError') throw osError('ENOTDIR', path);
    throw err;
  });
  try {
    const at = childOf(dir, target.rest[target.rest.length - 1]!);
    try {
      await mkdir(at, { mode });
    } catch (err) {
      if (isSystemError(err)) throw osError(err.code, path);
      throw err;
    }
    // The umask took bits away: set them (`os.chmod` after the statx, :259-263).
    if (((await lstat(at)).mode & 0o7777) !== mode) await chmod(at, mode);
    const st = await lstat(at);
    const real = await realpath(at);
    const { store } = appliance;
    store.write(() => setOwner(store.db, target.pool, target.rest.join('/'), ROOT));
    const parts = path.split('/').filter((s) => s !== '' && s !== '.');
    return {
      name: parts[parts.length - 1]!,
      path,
      realpath: real.startsWith(store.mntDir + sep) ? appliancePathOf(store.mntDir, real) : target.path,
      type: 'DIRECTORY',
      size: st.size,
      allocation_size: st.blocks * 512,
      mode: st.mode,
      acl: false,
      uid: ROOT.uid,
      gid: ROOT.gid,
      is_mountpoint: false,
      is_ctldir: false,
      mount_id: 0,
      attributes: [],
      xattrs: [],
      zfs_attrs: ['ARCHIVE'],
    };
  } finally {
    await dir.close();
  }
}
