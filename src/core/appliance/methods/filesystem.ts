import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { STATX_ATTRIBUTES, filesystemContract } from '../../contract/filesystem.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { ownerKey, type FileOwner } from '../../store/files.js';
import type { Appliance } from '../appliance.js';
import { implement, withJob } from '../method.js';
import { changeOwner, setPermissions } from '../files/perm.js';
import { makeDirectory } from '../files/mkdir.js';
import { query } from '../query/index.js';
import { appliancePathOf, resolveSandboxPath, type SandboxPath } from '../files/sandbox.js';

export const ROOT: FileOwner = { uid: 0, gid: 0 };

function fileType(st: Stats): 'DIRECTORY' | 'FILE' | 'SYMLINK' | 'OTHER' {
  if (st.isSymbolicLink()) return 'SYMLINK';
  if (st.isDirectory()) return 'DIRECTORY';
  if (st.isFile()) return 'FILE';
  return 'OTHER';
}

function lstatOrNull(host: string): Stats | null {
  try {
    return lstatSync(host);
  } catch {
    return null;
  }
}

/** The appliance's view of a path: checked, mapped, and with the pools known. */
export function sandboxPath(appliance: Appliance, path: string): SandboxPath {
  const { store } = appliance;
  return resolveSandboxPath(store.mntDir, appliance.pools(), path);
}

export function realpathOf(appliance: Appliance, path: string, host: string, st: Stats): string {
  if (!st.isSymbolicLink()) return path;
  try {
    const real = realpathSync(host);
    // Only a target inside the tree has an appliance path; never show a host path.
    return real.startsWith(appliance.store.mntDir + sep) ? appliancePathOf(appliance.store.mntDir, real) : path;
  } catch {
    return path;
  }
}

/** Mountpoints of filesystem datasets (pool roots included). */
export function mountpoints(appliance: Appliance): ReadonlySet<string> {
  return appliance.store.cached('mountpoints', () => new Set(appliance.datasets().filter((d) => !Object.hasOwn(d.properties, 'volsize')).map((d) => `/mnt/${d.id}`)));
}

/**
 * Names for ids that no account of the API has but the appliance's /etc/group does: a path owned
 * by gid 0 shows group "root" (stat resolves names with getpwuid/getgrgid, MW/plugins/filesystem.py:490-503).
 */
const SYSTEM_GROUPS: ReadonlyMap<number, string> = new Map([[0, 'root']]);
const SYSTEM_USERS: ReadonlyMap<number, string> = new Map([[0, 'root']]);

function commonFields(appliance: Appliance, path: string, host: string, st: Stats, owner: FileOwner, mountpoint: boolean) {
  // is_mountpoint is MOUNT_ROOT among the statx attributes (MW/plugins/filesystem.py:487).
  const attributes: (typeof STATX_ATTRIBUTES)[number][] = mountpoint ? ['MOUNT_ROOT'] : [];
  return {
    realpath: realpathOf(appliance, path, host, st),
    type: fileType(st),
    size: st.size,
    allocation_size: st.blocks * 512,
    mode: st.mode,
    mount_id: 0,
    uid: owner.uid,
    gid: owner.gid,
    is_mountpoint: attributes.includes('MOUNT_ROOT'),
    is_ctldir: false,
    attributes,
  };
}

/**
 * Where a path lies in the emulated tree. Only the pools' mountpoints exist below /mnt, and
 * nothing but /mnt exists below /: stat and listdir answer every other absolute path as 25.10.1
 * answers a missing one. `/` and `/mnt` are directories owned by root, mode 755, as on a fresh
 * appliance; `/` is a mount root, `/mnt` a plain directory of the boot pool's root dataset, and
 * listing `/` shows `mnt` only (the rest of the appliance's root file system is not emulated).
 * A path with `..` or a NUL byte is refused as the sandbox refuses it.
 */
export type Place = { kind: 'root' } | { kind: 'mnt' } | { kind: 'pool'; p: SandboxPath } | { kind: 'missing' };

export function placeOf(appliance: Appliance, path: string): Place {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (path.startsWith('/') && !segments.includes('..') && !path.includes('\0')) {
    if (segments.length === 0) return { kind: 'root' };
    if (segments[0] !== 'mnt') return { kind: 'missing' };
    if (segments.length === 1) return { kind: 'mnt' };
    if (!appliance.pools().includes(segments[1]!)) return { kind: 'missing' };
  }
  return { kind: 'pool', p: sandboxPath(appliance, path) };
}

/** `/` or `/mnt` as a directory entry: the state's mnt directory, shown as root's 755 directory. */
function syntheticDir(appliance: Appliance, path: '/' | '/mnt') {
  const st = lstatSync(appliance.store.mntDir);
  return { st, fields: { ...commonFields(appliance, path, appliance.store.mntDir, st, ROOT, path === '/'), realpath: path, mode: 0o40755 } };
}

function ownerNames(appliance: Appliance, owner: FileOwner): { user: string | null; group: string | null } {
  const accounts = appliance.accounts();
  return {
    user: accounts.users.find((u) => u.uid === owner.uid)?.username ?? SYSTEM_USERS.get(owner.uid) ?? null,
    group: accounts.groupByGid.get(owner.gid)?.name ?? SYSTEM_GROUPS.get(owner.gid) ?? null,
  };
}

function timesAndIds(st: Stats) {
  return {
    atime: st.atimeMs / 1000,
    mtime: st.mtimeMs / 1000,
    ctime: st.ctimeMs / 1000,
    btime: st.birthtimeMs / 1000,
    dev: st.dev,
    inode: st.ino,
    nlink: st.nlink,
    acl: false,
  };
}

/** filesystem.stat (MW/plugins/filesystem.py:404-507). */
export function statEntry(appliance: Appliance, path: string): Record<string, unknown> {
  if (path === 'EXTERNAL' || path.startsWith('EXTERNAL:')) throw rpcErrors.call(ERRNO.EXDEV, `${path} is external to TrueNAS`);
  if (!path.startsWith('/')) throw rpcErrors.call(ERRNO.EINVAL, `${path}: path must be absolute`);
  const place = placeOf(appliance, path);
  if (place.kind === 'missing') throw rpcErrors.call(ERRNO.ENOENT, `Path ${path} not found`);
  if (place.kind === 'root' || place.kind === 'mnt') {
    const { st, fields } = syntheticDir(appliance, place.kind === 'root' ? '/' : '/mnt');
    return { ...fields, ...timesAndIds(st), ...ownerNames(appliance, ROOT) };
  }
  const { p } = place;
  const st = lstatOrNull(p.host);
  if (!st) throw rpcErrors.call(ERRNO.ENOENT, `Path ${path} not found`);
  const owner = appliance.owners().get(ownerKey(p.pool, p.rest.join('/'))) ?? ROOT;
  return {
    ...commonFields(appliance, p.path, p.host, st, owner, mountpoints(appliance).has(p.path)),
    ...timesAndIds(st),
    ...ownerNames(appliance, owner),
  };
}

const dirEntryExtras = { acl: false, xattrs: [] as string[], zfs_attrs: [] as string[] };

/** filesystem.listdir (MW/plugins/filesystem.py:322-402); `/mnt` lists the pools' mountpoints. */
function listdirEntries(appliance: Appliance, path: string): Record<string, unknown>[] {
  // pathlib.Path(path) is what the messages show: slashes collapsed, a trailing one dropped.
  const shown = path.startsWith('/') ? `/${path.split('/').filter((s) => s !== '' && s !== '.').join('/')}` : path;
  const place: Place = path.startsWith('/') ? placeOf(appliance, path) : { kind: 'missing' };
  if (place.kind === 'missing') throw rpcErrors.call(ERRNO.ENOENT, `Directory ${shown} does not exist`);
  if (place.kind === 'root') {
    return [{ name: 'mnt', path: '/mnt', ...syntheticDir(appliance, '/mnt').fields, ...dirEntryExtras }];
  }
  if (place.kind === 'mnt') {
    return appliance.pools().flatMap((pool) => {
      const p = sandboxPath(appliance, `/mnt/${pool}`);
      const st = lstatOrNull(p.host);
      if (!st?.isDirectory()) return [];
      const owner = appliance.owners().get(ownerKey(pool, '')) ?? ROOT;
      return [{ name: pool, path: p.path, ...commonFields(appliance, p.path, p.host, st, owner, true), ...dirEntryExtras }];
    }).sort((a, b) => a.name.localeCompare(b.name));
  }
  const { p } = place;
  const st = lstatOrNull(p.host);
  if (!st) throw rpcErrors.call(ERRNO.ENOENT, `Directory ${p.path} does not exist`);
  if (!st.isDirectory()) throw rpcErrors.call(ERRNO.ENOTDIR, `Path ${p.path} is not a directory`);
  const names = readdirSync(p.host).sort();
  const rel = (name: string) => [...p.rest, name].join('/');
  const owners = appliance.owners();
  const mounts = mountpoints(appliance);
  return names.flatMap((name) => {
    const childPath = `${p.path}/${name}`;
    const childHost = join(p.host, name);
    const cst = lstatOrNull(childHost);
    if (!cst) return []; // removed while listing
    return [{ name, path: childPath, ...commonFields(appliance, childPath, childHost, cst, owners.get(ownerKey(p.pool, rel(name))) ?? ROOT, mounts.has(childPath)), ...dirEntryExtras }];
  });
}

export const filesystemMethods = [
  implement(filesystemContract['filesystem.stat'], ({ appliance }, path) => statEntry(appliance, path)),
  implement(filesystemContract['filesystem.listdir'], ({ appliance }, path, filters, options) => query(listdirEntries(appliance, path), filters, options)),
  implement(filesystemContract['filesystem.mkdir'], ({ appliance }, data) => makeDirectory(appliance, data)),
  implement(filesystemContract['filesystem.setperm'], ({ appliance, job }, data) => setPermissions(appliance, job!, data)),
  implement(filesystemContract['filesystem.chown'], ({ appliance, job }, data) => changeOwner(appliance, job!, data)),
  // As for put below: the output pipe only exists when core.download starts the job (core-download.ts).
  implement(withJob(filesystemContract['filesystem.get'], false), () => {
    throw rpcErrors.call(
      ERRNO.EINVAL,
      "Pipe 'output' is not open: filesystem.get writes the file's bytes, which a JSON-RPC answer cannot carry. " +
        'Download through core.download("filesystem.get", [path], filename) and GET the URL it answers (or run `stor download`).',
    );
  }),
  // The input pipe is checked when the job would be created (MW/job.py, `pipes=["input"]`): a
  // JSON-RPC call has none, so it fails before any job exists — hence no job here. Uploads start
  // the job themselves (upload.ts).
  implement(withJob(filesystemContract['filesystem.put'], false), () => {
    throw rpcErrors.call(
      ERRNO.EINVAL,
      "Pipe 'input' is not open: filesystem.put takes the file's bytes, which a JSON-RPC call cannot carry. " +
        "Upload through the upload endpoint instead: POST {base_url}/_upload/ as multipart, a 'data' part " +
        '{"method": "filesystem.put", "params": [path, {"mode": …}]} then a \'file\' part (or run `stor upload`).',
    );
  }),
];
