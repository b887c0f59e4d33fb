import { ERRNO, rpcErrors, type RpcError } from '../errors.js';

/**
 * How `pool.dataset.delete` refuses, errno and text as 25.10.1 words them: the emulator throws
 * these (src/core/appliance/), and `stor dataset delete` predicts the same before it asks
 * (src/commands/dataset/delete.ts), so a dry run and the real call fail alike, word for word.
 */
export const datasetDeleteRefusal = {
  /** Children, without `recursive` (MW/plugins/pool_/dataset.py:821-824). */
  children: (id: string): RpcError => rpcErrors.call(ERRNO.ENOTEMPTY, `Failed to delete dataset: cannot destroy '${id}': filesystem has children`),
  /** A pool's root dataset, without `recursive`: it goes only with its pool (the emulator's words). */
  poolRoot: (id: string): RpcError => rpcErrors.call(ERRNO.EINVAL, `Failed to delete dataset: '${id}' is the root dataset of pool ${id}; it goes only with the pool`),
  /**
   * Snapshots below, without `recursive`: past the middleware's own check of children, `zfs
   * destroy` refuses and lists them (MW/plugins/zfs_/dataset.py:229-240; zfs_main.c destroy_check_dependent).
   */
  snapshots: (id: string, kind: 'filesystem' | 'volume', snapshots: readonly string[]): RpcError =>
    rpcErrors.call(ERRNO.EFAULT, `Failed to delete dataset: cannot destroy '${id}': ${kind} has children\nuse '-r' to destroy the following datasets:\n${snapshots.join('\n')}`),
};
