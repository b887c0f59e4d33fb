import { ERRNO, rpcErrors, type RpcError, type ValidationTriple } from '../errors.js';

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

/*
 * How `pool.dataset.update` refuses, in 25.10.1's order and words: the emulator throws these
 * (src/core/appliance/methods/pool-dataset.ts) and `stor dataset update --dry-run` predicts them
 * from reads (src/commands/dataset/update-plan.ts).
 */
export const datasetUpdateRefusal = {
  /** A recordsize not among `pool.dataset.recordsize_choices` (MW/plugins/pool_/dataset.py:301-305; `{rs!r}`). */
  recordsize: (rs: string): ValidationTriple => ['pool_dataset_update.recordsize', `${pyRepr(rs)} is an invalid recordsize.`, ERRNO.EINVAL],
  /** A filesystem-only field sent for a volume (MW/plugins/pool_/dataset.py:322-326). */
  notForVolume: (field: string): ValidationTriple => [`pool_dataset_update.${field}`, 'This field is not valid for VOLUME', ERRNO.EINVAL],
  /**
   * A quota below what the dataset uses (or reserves), a refquota below what it references: the
   * middleware has no check of its own, ZFS refuses with ENOSPC (dsl_dir_set_quota_check,
   * dsl_dataset_set_refquota_check), libzfs words it (zfs_setprop_error), py-libzfs raises it as
   * ZFSException and MW/plugins/zfs_/dataset.py:268-271 wraps its repr in a CallError (EFAULT),
   * which pool.dataset.update passes on as it is (MW/plugins/pool_/dataset.py:778-782).
   */
  quotaBelowUsed: (): RpcError => rpcErrors.call(ERRNO.EFAULT, "Failed to update properties: ZFSException('size is less than current used or reserved space')"),
};

/** Python's repr of a string, as `{name!r}` prints it. */
export function pyRepr(s: string): string {
  return s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
