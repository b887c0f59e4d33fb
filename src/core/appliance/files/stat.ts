import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { STATX_ATTRIBUTES, filesystemDirEntry, filesystemStatData } from '../../contract/filesystem.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { ownerKey, type FileOwner } from '../../store/files.js';
import type { Appliance } from '../appliance.js';
import { ROOT, mountpoints, placeOf, realpathOf, sandboxPath, type Place } from './places.js';
import type { SandboxPath } from './sandbox.js';

// filesystem.stat and filesystem.listdir's entries (MW/plugins/filesystem.py:322-507).

/** What filesystem.stat answers, and each item filesystem.listdir lists, as their contracts type them. */
export type StatData = z.input<ReturnType<typeof filesystemStatData>>;
export type DirEntry = z.input<ReturnType<typeof filesystemDirEntry>>;

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

/**
 * Names for ids that no account of the API has but the appliance's /etc/group does: a path owned
 * by gid 0 shows group "root" (stat resolves names with getpwuid/getgrgid, MW/plugins/filesystem.py:490-503).
 */
const SYSTEM_GROUPS: ReadonlyMap<number, string> = new Map([[0, 'root']]);
const SYSTEM_USERS: ReadonlyMap<number, string> = new Map([[0, 'root']]);

function commonFields(
  appliance: Appliance,
  path: string,
  host: string,
  st: Stats,
  owner: FileOwner,
  mountpoint: boolean,
) {
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

/** `/` or `/mnt` as a directory entry: the state's mnt directory, shown as root's 755 directory. */
function syntheticDir(appliance: Appliance, path: '/' | '/mnt') {
  const st = lstatSync(appliance.store.mntDir);
  return {
    st,
    fields: {
      ...commonFields(appliance, path, appliance.store.mntDir, st, ROOT, path === '/'),
      realpath: path,
      mode: 0o40755,
    },
  };
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

/**
 * What filesystem.stat finds at `path` before it reads anything (MW/plugins/filesystem.py:404-507):
 * `/` or `/mnt`, or a path in a pool with its lstat; stat's errors for what it refuses or misses.
 */
function statPlace(
  appliance: Appliance,
  path: string,
): { kind: 'root' | 'mnt' } | { kind: 'pool'; p: SandboxPath; st: Stats } {
  if (path === 'EXTERNAL' || path.startsWith('EXTERNAL:'))
    throw rpcErrors.call(ERRNO.EXDEV, `${path} is external to TrueNAS`);
  if (!path.startsWith('/')) throw rpcErrors.call(ERRNO.EINVAL, `${path}: path must be absolute`);
  const place = placeOf(appliance, path);
  if (place.kind === 'missing') throw rpcErrors.call(ERRNO.ENOENT, `Path ${path} not found`);
  if (place.kind === 'root' || place.kind === 'mnt') return place;
  const st = lstatOrNull(place.p.host);
  if (!st) throw rpcErrors.call(ERRNO.ENOENT, `Path ${path} not found`);
  return { kind: 'pool', p: place.p, st };
}

/** filesystem.stat (MW/plugins/filesystem.py:404-507). */
export function statEntry(appliance: Appliance, path: string): StatData {
  const place = statPlace(appliance, path);
  if (place.kind !== 'pool') {
    const { st, fields } = syntheticDir(appliance, place.kind === 'root' ? '/' : '/mnt');
    return { ...fields, ...timesAndIds(st), ...ownerNames(appliance, ROOT) };
  }
  const { p, st } = place;
  const owner = appliance.owners().get(ownerKey(p.pool, p.rest.join('/'))) ?? ROOT;
  return {
    ...commonFields(appliance, p.path, p.host, st, owner, mountpoints(appliance).has(p.path)),
    ...timesAndIds(st),
    ...ownerNames(appliance, owner),
  };
}

/** `filesystem.stat(path)['realpath']` alone, with stat's errors: what share checks compare, without stat's other reads. */
export function statRealpath(appliance: Appliance, path: string): string {
  const place = statPlace(appliance, path);
  if (place.kind !== 'pool') return place.kind === 'root' ? '/' : '/mnt';
  return realpathOf(appliance, place.p.path, place.p.host, place.st);
}

const dirEntryExtras: Pick<DirEntry, 'acl' | 'xattrs' | 'zfs_attrs'> = { acl: false, xattrs: [], zfs_attrs: [] };

/** filesystem.listdir (MW/plugins/filesystem.py:322-402); `/mnt` lists the pools' mountpoints. */
export function listdirEntries(appliance: Appliance, path: string): DirEntry[] {
  // pathlib.Path(path) is what the messages show: slashes collapsed, a trailing one dropped.
  const shown = path.startsWith('/')
    ? `/${path
        .split('/')
        .filter((s) => s !== '' && s !== '.')
        .join('/')}`
    : path;
  const place: Place = path.startsWith('/') ? placeOf(appliance, path) : { kind: 'missing' };
  if (place.kind === 'missing') throw rpcErrors.call(ERRNO.ENOENT, `Directory ${shown} does not exist`);
  if (place.kind === 'root') {
    return [{ name: 'mnt', path: '/mnt', ...syntheticDir(appliance, '/mnt').fields, ...dirEntryExtras }];
  }
  if (place.kind === 'mnt') {
    return appliance
      .pools()
      .flatMap((pool) => {
        const p = sandboxPath(appliance, `/mnt/${pool}`);
        const st = lstatOrNull(p.host);
        if (!st?.isDirectory()) return [];
        const owner = appliance.owners().get(ownerKey(pool, '')) ?? ROOT;
        return [
          { name: pool, path: p.path, ...commonFields(appliance, p.path, p.host, st, owner, true), ...dirEntryExtras },
        ];
      })
      .sort((a, b) => a.name.localeCompare(b.name));
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
    return [
      {
        name,
        path: childPath,
        ...commonFields(
          appliance,
          childPath,
          childHost,
          cst,
          owners.get(ownerKey(p.pool, rel(name))) ?? ROOT,
          mounts.has(childPath),
        ),
        ...dirEntryExtras,
      },
    ];
  });
}
