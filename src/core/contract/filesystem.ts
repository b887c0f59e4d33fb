import * as z from 'zod';
import { defineContract, nonEmptyStr, queryResult, roles, once } from './method.js';
import { QUERY_PARAMS } from './query.js';

// `MW/api/v25_10_1/filesystem.py`; roles from `MW/plugins/filesystem.py` (stat, listdir: FILESYSTEM_ATTRS_READ;
// put: FULL_ADMIN only, :550-551).

const fileType = once(() => z.enum(['DIRECTORY', 'FILE', 'SYMLINK', 'OTHER']));

/** FILESYSTEM_STATX_ATTRS. */
export const STATX_ATTRIBUTES = ['COMPRESSED', 'APPEND', 'NODUMP', 'IMMUTABLE', 'AUTOMOUNT', 'MOUNT_ROOT', 'VERIFY', 'DAX'] as const;
const statxAttribute = once(() => z.enum(STATX_ATTRIBUTES));

/** FILESYSTEM_ZFS_ATTRS. */
const zfsAttribute = once(() => z.enum(['READONLY', 'HIDDEN', 'SYSTEM', 'ARCHIVE', 'IMMUTABLE', 'NOUNLINK', 'APPENDONLY', 'NODUMP', 'OPAQUE', 'AV_QUARANTINED', 'AV_MODIFIED', 'REPARSE', 'OFFLINE', 'SPARSE']));

/** FilesystemDirEntry: no timestamps and no user/group names. */
export const filesystemDirEntry = once(() => z.object({
  name: z.string().min(1),
  path: z.string().min(1),
  realpath: z.string().min(1),
  type: fileType(),
  size: z.int(),
  allocation_size: z.int(),
  mode: z.int(),
  mount_id: z.int(),
  acl: z.boolean(),
  uid: z.int(),
  gid: z.int(),
  is_mountpoint: z.boolean(),
  is_ctldir: z.boolean(),
  attributes: z.array(statxAttribute()),
  xattrs: z.array(z.string().min(1)),
  /** null when the file system is not ZFS. */
  zfs_attrs: z.array(zfsAttribute()).nullable(),
}));

/** FilesystemStatData. */
export const filesystemStatData = once(() => z.object({
  realpath: z.string().min(1),
  type: fileType(),
  size: z.int(),
  allocation_size: z.int(),
  mode: z.int(),
  mount_id: z.int(),
  uid: z.int(),
  gid: z.int(),
  atime: z.number(),
  mtime: z.number(),
  ctime: z.number(),
  btime: z.number(),
  dev: z.int(),
  inode: z.int(),
  nlink: z.int(),
  acl: z.boolean(),
  is_mountpoint: z.boolean(),
  is_ctldir: z.boolean(),
  attributes: z.array(statxAttribute()),
  user: z.string().min(1).nullable(),
  group: z.string().min(1).nullable(),
}));

/** FilesystemPutOptions. */
export const filesystemPutOptions = once(() => z.strictObject({ append: z.boolean().default(false), mode: z.int().nullable().default(null) }));

export const filesystemContract = {
  'filesystem.stat': defineContract({
    name: 'filesystem.stat',
    summary: 'Attributes of a path (lstat), with the owner and its names.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    params: () => [{ name: 'path', schema: nonEmptyStr() }],
    result: () => filesystemStatData(),
  }),
  'filesystem.listdir': defineContract({
    name: 'filesystem.listdir',
    summary: 'Entries of a directory (path, filters, options); /mnt lists the pools.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    // FilesystemListdirArgs names them query_filters and query_options.
    params: () => [
      { name: 'path', schema: nonEmptyStr() },
      { ...QUERY_PARAMS[0], name: 'query_filters' },
      { ...QUERY_PARAMS[1], name: 'query_options' },
    ],
    result: () => queryResult(filesystemDirEntry()),
  }),
  'filesystem.put': defineContract({
    name: 'filesystem.put',
    summary: 'Write a file; needs the bytes, so only through POST /_upload/ (or `stor upload`).',
    access: roles(),
    params: () => [
      { name: 'path', schema: nonEmptyStr() },
      { name: 'options', schema: filesystemPutOptions(), default: () => ({ append: false, mode: null }) },
    ],
    result: () => z.literal(true),
    job: true,
  }),
};
