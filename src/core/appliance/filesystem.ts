import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { z } from 'zod';
import { ERRNO, rpcErrors } from '../errors.js';
import { ownerKey, type FileOwner } from '../store/files.js';
import type { Appliance } from './appliance.js';
import { defineMethod, roles } from './method.js';
import { nonEmptyStr } from './params.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';
import { appliancePathOf, resolveSandboxPath, type SandboxPath } from './sandbox.js';

const ROOT: FileOwner = { uid: 0, gid: 0 };

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

function realpathOf(appliance: Appliance, p: SandboxPath, st: Stats): string {
  if (!st.isSymbolicLink()) return p.path;
  try {
    const real = realpathSync(p.host);
    // Only a target inside the tree has an appliance path; never show a host path.
    return real.startsWith(appliance.store.mntDir + sep) ? appliancePathOf(appliance.store.mntDir, real) : p.path;
  } catch {
    return p.path;
  }
}

/** Pool roots and dataset mountpoints. */
function mountpoints(appliance: Appliance): ReadonlySet<string> {
  return appliance.store.cached('mountpoints', () => new Set(appliance.datasets().map((d) => `/mnt/${d.id}`)));
}

function commonFields(appliance: Appliance, p: SandboxPath, st: Stats, owner: FileOwner, mounts: ReadonlySet<string>) {
  return {
    realpath: realpathOf(appliance, p, st),
    type: fileType(st),
    size: st.size,
    allocation_size: st.blocks * 512,
    mode: st.mode,
    mount_id: 0,
    uid: owner.uid,
    gid: owner.gid,
    is_mountpoint: mounts.has(p.path),
    is_ctldir: false,
    attributes: [] as string[],
  };
}

function statEntry(appliance: Appliance, path: string): Record<string, unknown> {
  const p = sandboxPath(appliance, path);
  const st = lstatOrNull(p.host);
  if (!st) throw rpcErrors.call(ERRNO.ENOENT, `Path ${p.path} not found`);
  const owner = appliance.owners().get(ownerKey(p.pool, p.rest.join('/'))) ?? ROOT;
  const accounts = appliance.accounts();
  return {
    ...commonFields(appliance, p, st, owner, mountpoints(appliance)),
    atime: st.atimeMs / 1000,
    mtime: st.mtimeMs / 1000,
    ctime: st.ctimeMs / 1000,
    btime: st.birthtimeMs / 1000,
    dev: st.dev,
    inode: st.ino,
    nlink: st.nlink,
    acl: false,
    user: accounts.users.find((u) => u.uid === owner.uid)?.username ?? null,
    group: accounts.groupByGid.get(owner.gid)?.name ?? null,
  };
}

function listdirEntries(appliance: Appliance, path: string): Record<string, unknown>[] {
  const p = sandboxPath(appliance, path);
  const st = lstatOrNull(p.host);
  if (!st) throw rpcErrors.call(ERRNO.ENOENT, `Directory ${p.path} does not exist`);
  if (!st.isDirectory()) throw rpcErrors.call(ERRNO.ENOTDIR, `Path ${p.path} is not a directory`);
  const names = readdirSync(p.host).sort();
  const rel = (name: string) => [...p.rest, name].join('/');
  const owners = appliance.owners();
  const mounts = mountpoints(appliance);
  return names.flatMap((name) => {
    const child: SandboxPath = { ...p, path: `${p.path}/${name}`, rest: [...p.rest, name], host: join(p.host, name) };
    const cst = lstatOrNull(child.host);
    if (!cst) return []; // removed while listing
    return [
      {
        name,
        path: child.path,
        ...commonFields(appliance, child, cst, owners.get(ownerKey(p.pool, rel(name))) ?? ROOT, mounts),
        acl: false,
        xattrs: [],
        zfs_attrs: [],
      },
    ];
  });
}

export const filesystemMethods = [
  defineMethod({
    name: 'filesystem.stat',
    summary: 'Attributes of a path (lstat), with the recorded owner and its names.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    params: [{ name: 'path', schema: nonEmptyStr() }],
    handler: ({ appliance }, path) => statEntry(appliance, path),
  }),
  defineMethod({
    name: 'filesystem.listdir',
    summary: 'Entries of a directory (path, filters, options).',
    access: roles('FILESYSTEM_ATTRS_READ'),
    params: [{ name: 'path', schema: nonEmptyStr() }, ...QUERY_PARAMS],
    handler: ({ appliance }, path, filters, options) => query(listdirEntries(appliance, path), filters, options),
  }),
  defineMethod({
    name: 'filesystem.put',
    summary: 'Write a file; needs the bytes, so only through POST /_upload/ (or `stor upload`).',
    access: roles(),
    params: [
      { name: 'path', schema: nonEmptyStr() },
      { name: 'options', schema: z.record(z.string(), z.unknown()), default: () => ({}) },
    ],
    handler: () => {
      throw rpcErrors.call(
        ERRNO.EINVAL,
        "Pipe 'input' is not open: filesystem.put takes the file's bytes, which a JSON-RPC call cannot carry. " +
          "Upload through the upload endpoint instead: POST {base_url}/_upload/ as multipart, a 'data' part " +
          '{"method": "filesystem.put", "params": [path, {"mode": …}]} then a \'file\' part (or run `stor upload`).',
      );
    },
  }),
];
