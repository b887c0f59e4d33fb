import { deleteNfsShares, listNfsShares } from '../../store/shares-nfs.js';
import type { Appliance } from '../appliance.js';
import { isChildPath } from '../shares/share-path.js';

/**
 * What pool.dataset.delete does to what uses the dataset before ZFS destroys it (MW/plugins/pool_/dataset.py:828-832):
 * each attachment delegate lists the ENABLED items at or below the mountpoint and deletes them.
 * NFS shares (MW/plugins/nfs_/fs_attachment_delegate.py:6-14; LockableFSAttachmentDelegate.query and
 * delete, MW/common/attachment/__init__.py:94-140): their rows go by `datastore.delete`, so no
 * `sharing.nfs.query` event is sent; a disabled share stays, its path gone. Call in a write.
 */
export function deleteDatasetAttachments(appliance: Appliance, datasetId: string): void {
  const mountpoint = `/mnt/${datasetId}`;
  const db = appliance.store.db;
  const attached = listNfsShares(db).filter((s) => s.enabled && isChildPath(appliance, s.path, mountpoint));
  deleteNfsShares(
    db,
    attached.map((s) => s.id),
  );
}
