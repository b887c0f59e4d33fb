import { constants } from 'node:fs';
import { chmod, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import type { filesystemChown, filesystemSetperm } from '../../contract/filesystem.js';
import { ERRNO, RpcError, rpcErrors, type ValidationTriple } from '../../errors.js';
import { ownerKey, setOwner, type FileOwner } from '../../store/files.js';
import type { Appliance } from '../appliance.js';
import { ROOT, mountpoints, sandboxPath } from './places.js';
import { statEntry, type StatData } from './stat.js';
import type { JobHandle } from '../jobs/jobs.js';
import { osError } from './os-error.js';
import { childOf, openParentDir } from './parent-dir.js';
import type { SandboxPath } from './sandbox.js';
import { walkBelow } from './tree-walk.js';
import { unixPermBits } from './unix-perm.js';

type ChownArgs = z.output<ReturnType<typeof filesystemChown>>;
type SetpermArgs = z.output<ReturnType<typeof filesystemSetperm>>;

/** Linux's O_PATH: a handle on the inode itself, which needs no read permission and follows nothing with O_NOFOLLOW. */
const O_PATH = 0o10000000;
/** Owner records are written this many at a time, and progress is told as often. */
const CHUNK = 256;

/** The ids to set; -1 leaves that one alone, as `os.chown` does. */
interface NewOwner {
  uid: number;
  gid: number;
}

/**
 * `user` and `group` names to ids (acl.py:173-185, :263-275): an unknown name is a validation
 * error under `filesystem.<method>.user|group`.
 */
function resolveOwner(
  appliance: Appliance,
  method: string,
  data: ChownArgs | SetpermArgs,
  errors: ValidationTriple[],
): NewOwner {
  let uid = data.uid ?? -1;
  let gid = data.gid ?? -1;
  const accounts = appliance.accounts();
  if (data.user) {
    const user = accounts.users.find((u) => u.username === data.user);
    if (user) uid = user.uid;
    else errors.push([`filesystem.${method}.user`, `${data.user}: user does not exist`, ERRNO.EINVAL]);
  }
  if (data.group) {
    const group = [...accounts.groupByGid.values()].find((g) => g.name === data.group);
    if (group) gid = group.gid;
    else errors.push([`filesystem.${method}.group`, `${data.group}: group does not exist`, ERRNO.EINVAL]);
  }
  return { uid, gid };
}

/**
 * `_common_perm_path_validate` (acl.py:81-137): the path must exist (stat's own error otherwise),
 * lie below /mnt, not be a pool's mountpoint, and not be a file when `recursive`. Answers the
 * path's real place in the sandbox, or null when a validation error was recorded.
 */
function validatePath(
  appliance: Appliance,
  method: string,
  path: string,
  recursive: boolean,
  errors: ValidationTriple[],
): SandboxPath | null {
  const attribute = `filesystem.${method}.path`;
  if (path === 'EXTERNAL' || path.startsWith('EXTERNAL:')) {
    errors.push([attribute, 'ACL operations on remote server paths are not possible', ERRNO.EINVAL]);
    return null;
  }
  let st: StatData;
  try {
    st = statEntry(appliance, path);
  } catch (err) {
    if (err instanceof RpcError && err.errno === ERRNO.EINVAL) {
      // Upstream's attribute lacks its f-string prefix (acl.py:93): it reads literally so.
      errors.push(['f{schema}.path', 'Must be an absolute path', ERRNO.EINVAL]);
      return null;
    }
    throw err;
  }
  const real = st.realpath;
  if (st.type === 'FILE' && recursive) {
    errors.push([attribute, 'Recursive operations on a file are invalid.', ERRNO.EINVAL]);
    return null;
  }
  if (!real.startsWith('/mnt/')) {
    errors.push([
      attribute,
      `Changes to permissions on paths that are not beneath the directory /mnt are not permitted: ${path}`,
      ERRNO.EINVAL,
    ]);
    return null;
  }
  if (real.split('/').filter(Boolean).length === 2) {
    errors.push([attribute, `The specified path is a ZFS pool mountpoint "(${path})" `, ERRNO.EINVAL]);
    return null;
  }
  return sandboxPath(appliance, real);
}

/**
 * Applies `mode` (when not null) to the inode at `host` without following a symlink: a link
 * swapped in meanwhile cannot redirect the change out of the pool. Answers false for a symlink,
 * which has no mode of its own on Linux and is left alone.
 */
async function chmodNoFollow(at: string, mode: number | null): Promise<boolean> {
  const handle = await open(at, O_PATH | constants.O_NOFOLLOW);
  try {
    if ((await handle.stat()).isSymbolicLink()) return false;
    if (mode !== null) await chmod(`/proc/self/fd/${handle.fd}`, mode);
    return true;
  } finally {
    await handle.close();
  }
}

/** What one job changes: the mode (or null) and the owner (ids of -1 left alone). */
interface Change {
  mode: number | null;
  owner: NewOwner;
}

function changedOwner(current: FileOwner, owner: NewOwner): FileOwner {
  return { uid: owner.uid === -1 ? current.uid : owner.uid, gid: owner.gid === -1 ? current.gid : owner.gid };
}

/**
 * Changes `target` and, when `recursive`, everything below it: not into child datasets unless
 * `traverse` (nfs4xdr_winacl's `-x`), never through a symlink. Ownership is the emulator's record
 * (it does not run as root); the mode is the file's own. Progress tells how far a long walk is.
 */
async function apply(
  appliance: Appliance,
  job: JobHandle,
  target: SandboxPath,
  change: Change,
  options: { recursive: boolean; traverse: boolean },
  what: string,
): Promise<void> {
  const { store } = appliance;
  const owners = appliance.owners();
  const records: [string, FileOwner][] = [];
  const flush = () => {
    const batch = records.splice(0);
    if (batch.length > 0)
      store.write(() => batch.forEach(([rel, owner]) => setOwner(store.db, target.pool, rel, owner)));
  };
  const record = (rel: string) => {
    if (change.owner.uid === -1 && change.owner.gid === -1) return;
    records.push([rel, changedOwner(owners.get(ownerKey(target.pool, rel)) ?? ROOT, change.owner)]);
  };
  try {
    // Reached through its parent, opened component by component without following (parent-dir.ts):
    // a directory above it swapped for a symlink cannot redirect the change.
    const parent = await openParentDir(target, false);
    try {
      if (!(await chmodNoFollow(childOf(parent, target.rest[target.rest.length - 1]!), change.mode)))
        throw osError('ELOOP', target.path);
    } finally {
      await parent.close();
    }
  } catch (err) {
    if (err instanceof RpcError) throw err;
    throw osError((err as NodeJS.ErrnoException).code ?? 'EIO', target.path);
  }
  record(target.rest.join('/'));
  if (!options.recursive) {
    flush();
    return;
  }
  job.progress(10, `Recursively ${what} ${target.path}.`);
  const skip = options.traverse
    ? new Set<string>()
    : new Set(
        [...mountpoints(appliance)]
          .filter((m) => m.startsWith(`${target.path}/`))
          .map((m) => join(store.mntDir, m.slice('/mnt/'.length))),
      );
  let done = 0;
  const prefix = target.poolRoot.length + 1;
  // Each entry is changed through the descriptor of the directory it was listed in (held-walk.ts).
  await walkBelow(target.host, store.mntDir, skip, async (host, at) => {
    // Gone since it was listed: nothing to change.
    const changed = await chmodNoFollow(at, change.mode).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    });
    if (changed) record(host.slice(prefix));
    if (++done % CHUNK === 0) {
      flush();
      job.progress(10, `Recursively ${what} ${target.path}: ${done} entries done.`);
    }
  });
  flush();
}

/** `filesystem.chown` (MW/plugins/filesystem_/acl.py:155-210). */
export async function changeOwner(appliance: Appliance, job: JobHandle, data: ChownArgs): Promise<null> {
  job.progress(0, 'Preparing to change owner.');
  const errors: ValidationTriple[] = [];
  const owner = resolveOwner(appliance, 'chown', data, errors);
  const target = validatePath(appliance, 'chown', data.path, data.options.recursive, errors);
  if (errors.length > 0 || !target) throw rpcErrors.validation(errors);
  if (!data.options.recursive) job.progress(100, 'Finished changing owner.');
  await apply(appliance, job, target, { mode: null, owner }, data.options, 'changing owner of');
  job.progress(100, 'Finished changing owner.');
  return null;
}

/** `filesystem.setperm` (MW/plugins/filesystem_/acl.py:212-305); the emulator has no ACLs to strip. */
export async function setPermissions(appliance: Appliance, job: JobHandle, data: SetpermArgs): Promise<null> {
  job.progress(0, 'Preparing to set permissions.');
  const errors: ValidationTriple[] = [];
  const owner = resolveOwner(appliance, 'setperm', data, errors);
  const target = validatePath(appliance, 'setperm', data.path, data.options.recursive, errors);
  const mode = data.mode === null ? null : unixPermBits(data.mode);
  if (mode === 0) errors.push(['filesystem.setperm.mode', 'Empty permissions are not permitted.', ERRNO.EINVAL]);
  if (errors.length > 0 || !target) throw rpcErrors.validation(errors);
  await apply(appliance, job, target, { mode, owner }, data.options, 'setting permissions on');
  job.progress(100, 'Finished setting permissions.');
  return null;
}
