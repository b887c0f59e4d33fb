import * as z from 'zod';
import { crud } from '../crud.js';
import { once, roles } from '../method.js';
import { SHARING_NFS_SUMMARIES, nfsShareCreate, nfsShareEntry, nfsShareUpdate } from '../sharing-nfs.js';
import { service } from '../service.js';
import { tierInfo } from './pool-dataset.js';

// What 26.0 changed in sharing.nfs.* (`git diff stable/26:MW/api/v25_10_1/nfs.py stable/26:MW/api/v26_0_0/nfs.py`):
// SharingNFSEntry gains `dataset` and `relative_path` (the path split at its dataset's mountpoint,
// null when it cannot be resolved; MW/api/v26_0_0/nfs.py:120-127, filled by resolve_dataset_path,
// MW/utils/mount.py:20-115, at MW/plugins/nfs.py:565-568) and `tier` (TierInfo | None, default None:
// null on an unlicensed system, :186-194). Create and update exclude all three (:198-207), so their
// params are 25.10.1's; delete and nfs.* are unchanged.

/** SharingNFSEntry in 26: `dataset` and `relative_path` after `path`, `tier` last. */
const sharingNfsEntry26 = once(() => {
  const { id, path, ...rest } = nfsShareEntry().shape;
  return z.object({
    id,
    path,
    dataset: z.string().nullable(),
    relative_path: z.string().nullable(),
    ...rest,
    tier: tierInfo().nullable(),
  });
});
export type SharingNfsEntry26 = z.output<ReturnType<typeof sharingNfsEntry26>>;

const shares = crud(sharingNfsEntry26, () => z.int(), {
  read: roles('SHARING_NFS_READ'),
  write: roles('SHARING_NFS_WRITE'),
});

/** The sharing.nfs.* entries 26.0 changed; sharing.nfs.delete is 25.10.1's. */
export const sharingNfsContract26 = service('sharing.nfs', {
  query: shares.query(SHARING_NFS_SUMMARIES.query),
  get_instance: shares.get_instance(SHARING_NFS_SUMMARIES.get_instance),
  create: shares.create(SHARING_NFS_SUMMARIES.create, 'data', nfsShareCreate, sharingNfsEntry26),
  update: shares.update(SHARING_NFS_SUMMARIES.update, 'data', nfsShareUpdate, sharingNfsEntry26),
});
