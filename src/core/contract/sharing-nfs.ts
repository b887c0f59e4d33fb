import * as z from 'zod';
import { crud } from './crud.js';
import { nonEmptyStr, once, roles, str } from './method.js';
import { service } from './service.js';

// `MW/api/v25_10_1/nfs.py:126-213` (NfsShareEntry, NfsShareCreate, NfsShareUpdate); service
// SharingNFSService (MW/plugins/nfs.py:428-440): a CRUDService with role_prefix SHARING_NFS, so
// query and get_instance need SHARING_NFS_READ, create, update and delete SHARING_NFS_WRITE
// (MW/main.py:315-337); do_create/do_update/do_delete take no app (MW/plugins/nfs.py:442-518).

/** `Literal["SYS", "KRB5", "KRB5I", "KRB5P"]`. */
export const NFS_SECURITY = ['SYS', 'KRB5', 'KRB5I', 'KRB5P'] as const;

/** NfsShareEntry, in its field order. */
export const nfsShareEntry = once(() =>
  z.object({
    id: z.int(),
    path: z.string().min(1),
    aliases: z.array(z.string().min(1)),
    comment: z.string(),
    networks: z.array(z.string().min(1)),
    hosts: z.array(z.string().min(1)),
    ro: z.boolean(),
    maproot_user: z.string().nullable(),
    maproot_group: z.string().nullable(),
    mapall_user: z.string().nullable(),
    mapall_group: z.string().nullable(),
    security: z.array(z.enum(NFS_SECURITY)),
    enabled: z.boolean(),
    locked: z.boolean().nullable(),
    expose_snapshots: z.boolean(),
  }),
);
export type NfsShareEntry = z.output<ReturnType<typeof nfsShareEntry>>;

/** NfsShareCreate's fields (NfsShareEntry without `id` and `locked`), as update takes them too. */
const shareFields = () => ({
  path: nonEmptyStr(),
  aliases: z.array(nonEmptyStr()),
  comment: str(),
  networks: z.array(nonEmptyStr()),
  hosts: z.array(nonEmptyStr()),
  ro: z.boolean(),
  maproot_user: str().nullable(),
  maproot_group: str().nullable(),
  mapall_user: str().nullable(),
  mapall_group: str().nullable(),
  security: z.array(z.enum(NFS_SECURITY)),
  enabled: z.boolean(),
  expose_snapshots: z.boolean(),
});

/**
 * What a share made without them has, of the fields an operator sets (NfsShareEntry's defaults,
 * MW/api/v25_10_1/nfs.py:130-173): `stor share nfs create` compares --exist-ok with them and
 * desired state's export leaves them out. nfsShareCreate below gives the same (a test holds them equal).
 */
export const NFS_SHARE_DEFAULTS = {
  comment: '',
  networks: [] as string[],
  hosts: [] as string[],
  ro: false,
  maproot_user: null as string | null,
  maproot_group: null as string | null,
  mapall_user: null as string | null,
  mapall_group: null as string | null,
  security: [] as (typeof NFS_SECURITY)[number][],
  enabled: true,
};

/** NfsShareCreate: `path` required, the rest with NfsShareEntry's defaults. */
export const nfsShareCreate = once(() => {
  const f = shareFields();
  return z.strictObject({
    path: f.path,
    aliases: f.aliases.default([]),
    comment: f.comment.default(''),
    networks: f.networks.default([]),
    hosts: f.hosts.default([]),
    ro: f.ro.default(false),
    maproot_user: f.maproot_user.default(null),
    maproot_group: f.maproot_group.default(null),
    mapall_user: f.mapall_user.default(null),
    mapall_group: f.mapall_group.default(null),
    security: f.security.default([]),
    enabled: f.enabled.default(true),
    expose_snapshots: f.expose_snapshots.default(false),
  });
});

/** NfsShareUpdate (ForUpdateMetaclass): every field of NfsShareCreate optional, none defaulted. */
export const nfsShareUpdate = once(() => z.strictObject(shareFields()).partial());

export type NfsShareCreate = z.output<ReturnType<typeof nfsShareCreate>>;
export type NfsShareUpdate = z.output<ReturnType<typeof nfsShareUpdate>>;

const shares = crud(nfsShareEntry, () => z.int(), {
  read: roles('SHARING_NFS_READ'),
  write: roles('SHARING_NFS_WRITE'),
});

export const SHARING_NFS_SUMMARIES = {
  query: 'List NFS shares (filters, options; `extra.retrieve_locked_info` false leaves `locked` null).',
  get_instance: 'One NFS share by id.',
  create: 'Export a path under a pool over NFS {path, networks, hosts, maproot/mapall, security, ro, …}.',
  update: 'Change an NFS share by id; the merged share is checked as a new one.',
  delete: 'Delete an NFS share by id.',
} as const;

export const sharingNfsContract = service('sharing.nfs', {
  query: shares.query(SHARING_NFS_SUMMARIES.query),
  get_instance: shares.get_instance(SHARING_NFS_SUMMARIES.get_instance),
  create: shares.create(SHARING_NFS_SUMMARIES.create, 'data', nfsShareCreate, nfsShareEntry),
  update: shares.update(SHARING_NFS_SUMMARIES.update, 'data', nfsShareUpdate, nfsShareEntry),
  delete: shares.delete(SHARING_NFS_SUMMARIES.delete, () => z.literal(true)),
});
