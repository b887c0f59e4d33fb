import { deleteNfsShares, listNfsShares } from '../../store/shares-nfs.js';
import { deleteReplications, listReplications } from '../../store/replications.js';
import { deleteSmbShare, listSmbShares } from '../../store/shares-smb.js';
import { deleteSnapshotTasks, listSnapshotTasks } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { publishEvent } from '../crud-events.js';
import { isChildPath } from '../shares/share-path.js';
import { isExternalPath } from '../shares/smb.js';
import { isChild } from '../snapshot-tasks/dataset-tree.js';

/** What a dataset's delete took with it, for the events sent once its write is done. */
export interface DeletedAttachments {
  smbShares: number[];
}

/**
 * What pool.dataset.delete does to what uses the dataset before ZFS destroys it (MW/plugins/pool_/dataset.py:828-832):
 * each attachment delegate lists the ENABLED items at or below the mountpoint
 * (LockableFSAttachmentDelegate.query, MW/common/attachment/__init__.py:94-104) and deletes them,
 * and they stay deleted when `zfs destroy` then refuses (snapshots, a busy dataset). A disabled
 * item stays, its path gone. Call in a write; `sendAttachmentEvents` after it.
 * - NFS shares (MW/plugins/nfs_/fs_attachment_delegate.py:6-14; the base class's delete,
 *   MW/common/attachment/__init__.py:109-140): their rows go by `datastore.delete`, no event.
 * - SMB shares (MW/plugins/smb.py:1754-1760): each through `sharing.smb.delete`, which sends its
 *   REMOVED event; a share whose path is EXTERNAL is on no dataset (MW/plugins/smb.py:1782-1785).
 * - Periodic snapshot tasks (MW/plugins/snapshot.py:359-382): those whose dataset's mountpoint is at
 *   or below (`filesystem.is_child`), by `datastore.delete`, no event.
 * - Replication tasks (MW/plugins/replication.py:648-678): a LOCAL or PUSH one with a source dataset
 *   at or below, a LOCAL or PULL one with its target at or below, by `datastore.delete`, no event;
 *   their bound-task links go with them.
 */
export function deleteDatasetAttachments(appliance: Appliance, datasetId: string): DeletedAttachments {
  const mountpoint = `/mnt/${datasetId}`;
  const db = appliance.store.db;
  const nfs = listNfsShares(db).filter((s) => s.enabled && isChildPath(appliance, s.path, mountpoint));
  deleteNfsShares(
    db,
    nfs.map((s) => s.id),
  );
  const smb = listSmbShares(db).filter(
    (s) => s.enabled && !isExternalPath(s.path) && isChildPath(appliance, s.path, mountpoint),
  );
  for (const s of smb) deleteSmbShare(db, s.id);
  deleteSnapshotTasks(
    db,
    listSnapshotTasks(db)
      .filter((t) => t.enabled && isChild(t.dataset, datasetId))
      .map((t) => t.id),
  );
  deleteReplications(
    db,
    listReplications(db)
      .filter(({ data: r }) => {
        if (!r.enabled) return false;
        const source =
          (r.transport === 'LOCAL' || r.direction === 'PUSH') && r.source_datasets.some((d) => isChild(d, datasetId));
        const target = (r.transport === 'LOCAL' || r.direction === 'PULL') && isChild(r.target_dataset, datasetId);
        return source || target;
      })
      .map((r) => r.id),
  );
  return { smbShares: smb.map((s) => s.id) };
}

/** The events of `sharing.smb.delete` for the SMB shares a dataset's delete took. */
export function sendAttachmentEvents(appliance: Appliance, deleted: DeletedAttachments): void {
  for (const id of deleted.smbShares) publishEvent(appliance, 'sharing.smb.delete', [id], true);
}
