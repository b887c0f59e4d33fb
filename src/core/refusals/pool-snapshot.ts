import { ERRNO, rpcErrors, type RpcError } from '../errors.js';

/**
 * How `pool.snapshot.rollback` refuses: `zfs rollback`'s own words after the middleware's
 * prefix, errno EFAULT (MW/plugins/zfs_/snapshot_actions.py:74-80). The emulator throws these
 * (src/core/appliance/), and `stor snapshot rollback` predicts the same before it asks
 * (src/commands/snapshot/rollback.ts).
 */
export const snapshotRollbackRefusal = {
  /** Any failure of `zfs rollback`, as it reports it on stderr. */
  failed: (stderr: string): RpcError => rpcErrors.call(ERRNO.EFAULT, `Failed to rollback snapshot: ${stderr}`),
  /** Snapshots of the dataset taken after this one, without `-r`: listed, oldest first. */
  laterSnapshots: (id: string, later: readonly string[]): RpcError =>
    snapshotRollbackRefusal.failed(
      [
        `cannot rollback to '${id}': more recent snapshots or bookmarks exist`,
        "use '-r' to force deletion of the following snapshots and bookmarks:",
        ...later,
      ].join('\n'),
    ),
};
