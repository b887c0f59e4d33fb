import * as z from 'zod';
import { nonEmptyStr, queryResult, roles, once, str } from './method.js';
import { queryParams } from './query.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/filesystem.py`; roles from `MW/plugins/filesystem.py` (stat, listdir: FILESYSTEM_ATTRS_READ;
// mkdir: FILESYSTEM_DATA_WRITE, :226; get, put: FULL_ADMIN only, :537, :550) and
// `MW/plugins/filesystem_/acl.py` (chown, setperm: FILESYSTEM_ATTRS_WRITE, :155, :212).

const fileType = once(() => z.enum(['DIRECTORY', 'FILE', 'SYMLINK', 'OTHER']));

/** FILESYSTEM_STATX_ATTRS. */
export const STATX_ATTRIBUTES = [
  'COMPRESSED',
  'APPEND',
  'NODUMP',
  'IMMUTABLE',
  'AUTOMOUNT',
  'MOUNT_ROOT',
  'VERIFY',
  'DAX',
] as const;
const statxAttribute = once(() => z.enum(STATX_ATTRIBUTES));

/** FILESYSTEM_ZFS_ATTRS. */
const zfsAttribute = once(() =>
  z.enum([
    'READONLY',
    'HIDDEN',
    'SYSTEM',
    'ARCHIVE',
    'IMMUTABLE',
    'NOUNLINK',
    'APPENDONLY',
    'NODUMP',
    'OPAQUE',
    'AV_QUARANTINED',
    'AV_MODIFIED',
    'REPARSE',
    'OFFLINE',
    'SPARSE',
  ]),
);

/** FilesystemDirEntry: no timestamps and no user/group names. */
export const filesystemDirEntry = once(() =>
  z.object({
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
  }),
);

/** FilesystemStatData. */
export const filesystemStatData = once(() =>
  z.object({
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
  }),
);

/** FilesystemPutOptions. */
export const filesystemPutOptions = once(() =>
  z.strictObject({ append: z.boolean().default(false), mode: z.int().nullable().default(null) }),
);

/** UnixPerm (MW/api/base/types/filesystem.py:11-27): an octal string between 000 and 777. */
export const unixPerm = once(() =>
  str().superRefine((value, ctx) => {
    // Python's int(value, 8): optional sign, optional 0o prefix, digits with single underscores between them.
    const m = /^\s*([+-]?)(?:0[oO]_?)?([0-7](?:_?[0-7])*)\s*$/.exec(value);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'Not a valid integer. Must be between 000 and 777' });
      return;
    }
    const mode = (m[1] === '-' ? -1 : 1) * parseInt(m[2]!.replaceAll('_', ''), 8);
    if (mode < 0 || (mode & 0o777) !== mode)
      ctx.addIssue({ code: 'custom', message: 'Please supply a value between 000 and 777' });
  }),
);

/** AceWhoId (MW/api/v25_10_1/acl.py:37-39): -1 (unset) up to 2**31 - 1. */
const aceWhoId = once(() =>
  z
    .int()
    .min(-1)
    .max(2 ** 31 - 1),
);

/** FilesystemRecursionOptions. */
const recursionOptions = once(() => ({ recursive: z.boolean().default(false), traverse: z.boolean().default(false) }));

/** FilesystemPermChownBase: `null` (or -1 for the ids) leaves that part of the owner alone. */
const permChownBase = once(() => ({
  path: nonEmptyStr(),
  uid: aceWhoId().nullable().default(null),
  user: nonEmptyStr().nullable().default(null),
  gid: aceWhoId().nullable().default(null),
  group: nonEmptyStr().nullable().default(null),
}));

const unset = (v: number | string | null) => v === null || v === -1;

/** FilesystemChownArgs, with its `user_group_present` model validator (:72-79). */
export const filesystemChown = once(() =>
  z
    .strictObject({
      ...permChownBase(),
      options: z.strictObject(recursionOptions()).default({ recursive: false, traverse: false }),
    })
    .superRefine((data, ctx) => {
      if ([data.uid, data.user, data.gid, data.group].every(unset)) {
        ctx.addIssue({
          code: 'custom',
          message: 'At least one of uid, gid, user, and group must be set in chown payload',
        });
      }
    }),
);

/** FilesystemSetpermArgs, with its `payload_is_actionable` model validator (:94-103). */
export const filesystemSetperm = once(() =>
  z
    .strictObject({
      ...permChownBase(),
      mode: unixPerm().nullable().default(null),
      options: z
        .strictObject({ ...recursionOptions(), stripacl: z.boolean().default(false) })
        .default({ recursive: false, traverse: false, stripacl: false }),
    })
    .superRefine((data, ctx) => {
      if (data.mode === null && !data.options.stripacl) {
        ctx.addIssue({
          code: 'custom',
          message: 'Payload must either explicitly specify permissions or contain the stripacl option.',
        });
      }
    }),
);

/** FilesystemMkdirArgs. */
export const filesystemMkdir = once(() =>
  z.strictObject({
    path: nonEmptyStr(),
    options: z
      .strictObject({ mode: unixPerm().default('755'), raise_chmod_error: z.boolean().default(true) })
      .default({ mode: '755', raise_chmod_error: true }),
  }),
);

/** FilesystemStatfsData (`MW/api/v25_10_1/filesystem.py:283-338`); flags and fstype are StatfsFlags or any string. */
export const filesystemStatfsData = once(() =>
  z.object({
    flags: z.array(z.string()),
    fsid: nonEmptyStr(),
    fstype: z.string(),
    source: nonEmptyStr(),
    dest: nonEmptyStr(),
    blocksize: z.int(),
    total_blocks: z.int(),
    free_blocks: z.int(),
    avail_blocks: z.int(),
    total_blocks_str: nonEmptyStr(),
    free_blocks_str: nonEmptyStr(),
    avail_blocks_str: nonEmptyStr(),
    files: z.int(),
    free_files: z.int(),
    name_max: z.int(),
    total_bytes: z.int(),
    free_bytes: z.int(),
    avail_bytes: z.int(),
    total_bytes_str: nonEmptyStr(),
    free_bytes_str: nonEmptyStr(),
    avail_bytes_str: nonEmptyStr(),
  }),
);
export type FilesystemStatfsData = z.output<ReturnType<typeof filesystemStatfsData>>;

export const filesystemContract = service('filesystem', {
  stat: method({
    summary: 'Attributes of a path (lstat), with the owner and its names.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    params: () => [{ name: 'path', schema: nonEmptyStr() }],
    result: () => filesystemStatData(),
  }),
  listdir: method({
    summary: 'Entries of a directory (path, filters, options); /mnt lists the pools.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    // FilesystemListdirArgs names them query_filters and query_options.
    params: () => [
      { name: 'path', schema: nonEmptyStr() },
      { ...queryParams()[0], name: 'query_filters' },
      { ...queryParams()[1], name: 'query_options' },
    ],
    result: () => queryResult(filesystemDirEntry()),
  }),
  // MW/plugins/filesystem.py:575 (FILESYSTEM_ATTRS_READ).
  statfs: method({
    summary:
      'Space and mount of the file system holding a path under /mnt/: blocks, bytes, inodes, the dataset mounted there.',
    access: roles('FILESYSTEM_ATTRS_READ'),
    params: () => [{ name: 'path', schema: nonEmptyStr() }],
    result: () => filesystemStatfsData(),
  }),
  mkdir: method({
    summary: 'Make one directory {path, options: {mode: "755"}}; its parent must exist. Answers its listdir entry.',
    access: roles('FILESYSTEM_DATA_WRITE'),
    params: () => [{ name: 'filesystem_mkdir', schema: filesystemMkdir() }],
    result: () => filesystemDirEntry(),
  }),
  setperm: method({
    summary:
      'Set the mode (octal string) and optionally the owner of a path, {options: {recursive, traverse, stripacl}}.',
    access: roles('FILESYSTEM_ATTRS_WRITE'),
    params: () => [{ name: 'filesystem_setperm', schema: filesystemSetperm() }],
    result: () => z.null(),
    job: true,
  }),
  chown: method({
    summary: 'Change the owner (uid/user) and/or group (gid/group) of a path, {options: {recursive, traverse}}.',
    access: roles('FILESYSTEM_ATTRS_WRITE'),
    params: () => [{ name: 'filesystem_chown', schema: filesystemChown() }],
    result: () => z.null(),
    job: true,
  }),
  get: method({
    summary:
      "Read a file; its bytes go to the job's output pipe, so only through core.download and GET /_download/ (or `stor download`).",
    access: roles(),
    params: () => [{ name: 'path', schema: nonEmptyStr() }],
    result: () => z.null(),
    job: true,
    pipe: 'output', // MW/plugins/filesystem.py:538
  }),
  put: method({
    summary: 'Write a file; needs the bytes, so only through POST /_upload/ (or `stor upload`).',
    access: roles(),
    params: () => [
      { name: 'path', schema: nonEmptyStr() },
      { name: 'options', schema: filesystemPutOptions(), default: () => ({ append: false, mode: null }) },
    ],
    result: () => z.literal(true),
    job: true,
    pipe: 'input', // MW/plugins/filesystem.py:551
  }),
});
