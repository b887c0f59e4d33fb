import { ERRNO, rpcErrors, type RpcError } from '../errors.js';
import { pyRepr } from '../python-repr.js';

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
  /**
   * 26.0: lzc_rollback_to's EEXIST made a ValueError that lists the later snapshots, oldest first,
   * each indented by two spaces (MW/plugins/zfs/snapshot_rollback_impl.py:135-141, :146-168 at
   * TS-26.0.0-BETA.3), raised as it is (MW/plugins/pool_/snapshot.py:62-66).
   */
  laterSnapshots26: (later: readonly string[]): RpcError => {
    const text =
      'Cannot rollback: more recent snapshots or bookmarks exist. Please pass `recursive: true` to ' +
      'delete the following snapshots and bookmarks recursively:\n' +
      later.map((s) => `  ${s}`).join('\n');
    return rpcErrors.exception('ValueError', text, `ValueError(${pyRepr(text)})`);
  },
};
