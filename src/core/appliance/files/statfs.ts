import { createHash } from 'node:crypto';
import { lstatSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { FilesystemStatfsData } from '../../contract/filesystem.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import type { Appliance } from '../appliance.js';
import { assertInsidePool } from './sandbox.js';
import { mountpoints, placeOf } from './places.js';

/*
 * filesystem.statfs (MW/plugins/filesystem.py:575-625) over the emulator's tree. The numbers are
 * the host file system's under the state directory (statvfs of the path, as 25.10.1 takes them);
 * the mount is the dataset the path lies in, as ZFS mounts each filesystem dataset on its own:
 * `source` its name, `dest` its mountpoint, `fstype` zfs. Synthetic (docs/RELEASES.md "Emulator
 * behaviours"): `flags` are what a default 25.10.1 dataset shows, `fsid` is derived from the
 * dataset's name, `name_max` is ZFS's 255, and `blocksize` is the host's block size.
 */

/** Mount and superblock options of a dataset with 25.10.1's defaults (acltype posix, casesensitive, xattr on). */
const FLAGS = ['RW', 'NOATIME', 'XATTR', 'POSIXACL', 'CASESENSITIVE'];

export function statfsOf(appliance: Appliance, path: string): FilesystemStatfsData {
  const noSymlinks = appliance.release.noSymlinkPaths;
  // MW/plugins/filesystem.py:583-586; CallError's default errno is EFAULT. 26 has no such check
  // (stable/26 MW/plugins/filesystem.py:630-646): there a path outside the pools is not found here.
  if (!noSymlinks && !path.startsWith('/mnt/')) throw rpcErrors.call(ERRNO.EFAULT, 'Path must start with "/mnt/"');
  if (!noSymlinks && path === '/mnt/') throw rpcErrors.call(ERRNO.EFAULT, 'Path must include more than "/mnt/"');
  const place = placeOf(appliance, path);
  // MW/plugins/filesystem.py:596-597: os.open of a missing path.
  const notFound = () => rpcErrors.call(ERRNO.ENOENT, 'Path not found.');
  if (place.kind !== 'pool') throw notFound();
  assertInsidePool(place.p);
  // 26 opens the path with RESOLVE_NO_SYMLINKS: a symlink at any component is ELOOP, which it
  // words as its own (stable/26 MW/plugins/filesystem.py:632-649).
  if (noSymlinks) {
    for (let i = 1; i <= place.p.rest.length; i++) {
      const st = lstatSync(join(place.p.poolRoot, ...place.p.rest.slice(0, i)), { throwIfNoEntry: false });
      if (st === undefined) throw notFound();
      if (st.isSymbolicLink()) throw rpcErrors.call(ERRNO.ELOOP, 'Symlinks are not permitted.');
    }
  }
  let st: ReturnType<typeof statfsSync>;
  try {
    st = statfsSync(place.p.host);
  } catch {
    throw notFound();
  }
  // The deepest filesystem dataset whose mountpoint holds the path.
  const dest = [...mountpoints(appliance)]
    .filter((m) => place.p.path === m || place.p.path.startsWith(`${m}/`))
    .sort((a, b) => b.length - a.length)[0]!;
  const source = dest.slice('/mnt/'.length);
  const fsid = createHash('sha256')
    .update(`${appliance.store.stateDir}\0${source}`)
    .digest()
    .readBigUInt64BE()
    .toString();
  const [total, free, avail] = [st.blocks, st.bfree, st.bavail];
  const [totalBytes, freeBytes, availBytes] = [total * st.bsize, free * st.bsize, avail * st.bsize];
  // In FilesystemStatfsData's order (MW/api/v25_10_1/filesystem.py:296-338), which the answer is
  // serialized in; the `_str` fields are each count again as text (MW/plugins/filesystem.py:623-624).
  return {
    flags: FLAGS,
    fsid,
    fstype: 'zfs',
    source,
    dest,
    blocksize: st.bsize,
    total_blocks: total,
    free_blocks: free,
    avail_blocks: avail,
    total_blocks_str: String(total),
    free_blocks_str: String(free),
    avail_blocks_str: String(avail),
    files: st.files,
    free_files: st.ffree,
    name_max: 255,
    total_bytes: totalBytes,
    free_bytes: freeBytes,
    avail_bytes: availBytes,
    total_bytes_str: String(totalBytes),
    free_bytes_str: String(freeBytes),
    avail_bytes_str: String(availBytes),
  };
}
