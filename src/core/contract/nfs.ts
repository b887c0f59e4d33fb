import * as z from 'zod';
import { nonEmptyStr, once, roles, str } from './method.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/nfs.py:35-103` (NfsEntry, NFSUpdateArgs); service NFSService (MW/plugins/nfs.py:85-96),
// a SystemServiceService with role_prefix SHARING_NFS: nfs.config needs SHARING_NFS_READ, nfs.update
// SHARING_NFS_WRITE (MW/main.py:315-329). Unchanged in 26.0 but for the model's name (NFSEntry).

/** `Literal["NFSV3", "NFSV4"]`. */
const NFS_PROTOCOLS = ['NFSV3', 'NFSV4'] as const;

/** NFS over RDMA's port, which no other port may take (MW/api/v25_10_1/nfs.py:36-37). */
const NFS_RDMA_DEFAULT_PORT = 20049;

/** `NfsTcpPort`: `TcpPort | None` (1 … 65535), 20049 refused (MW/api/base/types/network.py:17-26, 64). */
const nfsTcpPort = () =>
  z
    .int()
    .min(1)
    .max(65535)
    .nullable()
    .superRefine((value, ctx) => {
      if (value === NFS_RDMA_DEFAULT_PORT)
        ctx.addIssue({
          code: 'custom',
          message: `${value} is a reserved for internal use. Please select another value.`,
        });
    });

/** NfsEntry, in its field order. */
const nfsEntry = once(() =>
  z.object({
    id: z.int(),
    servers: z.int().min(1).max(256).nullable(),
    allow_nonroot: z.boolean(),
    protocols: z.array(z.enum(NFS_PROTOCOLS)),
    v4_krb: z.boolean(),
    v4_domain: z.string(),
    bindip: z.array(z.string().min(1)),
    mountd_port: z.int().min(1).max(65535).nullable(),
    rpcstatd_port: z.int().min(1).max(65535).nullable(),
    rpclockd_port: z.int().min(1).max(65535).nullable(),
    mountd_log: z.boolean(),
    statd_lockd_log: z.boolean(),
    v4_krb_enabled: z.boolean(),
    userd_manage_gids: z.boolean(),
    keytab_has_nfs_spn: z.boolean(),
    managed_nfsd: z.boolean(),
    rdma: z.boolean(),
  }),
);
export type NfsEntry = z.output<ReturnType<typeof nfsEntry>>;

/**
 * NFSUpdateArgs (`single_argument_args("nfs_update")`, ForUpdateMetaclass): NfsEntry without id,
 * managed_nfsd, v4_krb_enabled and keytab_has_nfs_spn, every field optional.
 */
export const nfsUpdate = once(() =>
  z
    .strictObject({
      servers: z.int().min(1).max(256).nullable(),
      allow_nonroot: z.boolean(),
      protocols: z.array(z.enum(NFS_PROTOCOLS)),
      v4_krb: z.boolean(),
      v4_domain: str(),
      bindip: z.array(nonEmptyStr()),
      mountd_port: nfsTcpPort(),
      rpcstatd_port: nfsTcpPort(),
      rpclockd_port: nfsTcpPort(),
      mountd_log: z.boolean(),
      statd_lockd_log: z.boolean(),
      userd_manage_gids: z.boolean(),
      rdma: z.boolean(),
    })
    .partial(),
);
export type NfsUpdate = z.output<ReturnType<typeof nfsUpdate>>;

export const nfsContract = service('nfs', {
  // ConfigService.config (MW/service/config_service.py:78-85): no arguments.
  config: method({
    summary: "The NFS service's settings (protocols, nfsd count, ports, bind addresses, Kerberos).",
    access: roles('SHARING_NFS_READ'),
    params: () => [],
    result: () => nfsEntry(),
  }),
  update: method({
    summary: "Change the NFS service's settings; answers them as nfs.config does.",
    access: roles('SHARING_NFS_WRITE'),
    params: () => [{ name: 'nfs_update', schema: nfsUpdate() }],
    result: () => nfsEntry(),
  }),
});
