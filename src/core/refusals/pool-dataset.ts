import { ERRNO, rpcErrors, type RpcError, type ValidationTriple } from '../errors.js';

/**
 * How `pool.dataset.delete` refuses, errno and text as 25.10.1 words them: the emulator throws
 * these (src/core/appliance/), and `stor dataset delete` predicts the same before it asks
 * (src/commands/dataset/delete.ts), so a dry run and the real call fail alike, word for word.
 */
export const datasetDeleteRefusal = {
  /** Children, without `recursive` (MW/plugins/pool_/dataset.py:821-824). */
  children: (id: string): RpcError =>
    rpcErrors.call(ERRNO.ENOTEMPTY, `Failed to delete dataset: cannot destroy '${id}': filesystem has children`),
  /** A pool's root dataset, without `recursive`: it goes only with its pool (the emulator's words). */
  poolRoot: (id: string): RpcError =>
    rpcErrors.call(
      ERRNO.EINVAL,
      `Failed to delete dataset: '${id}' is the root dataset of pool ${id}; it goes only with the pool`,
    ),
  /**
   * Snapshots below, without `recursive`: past the middleware's own check of children, `zfs
   * destroy` refuses and lists them (MW/plugins/zfs_/dataset.py:229-240; zfs_main.c destroy_check_dependent).
   */
  snapshots: (id: string, kind: 'filesystem' | 'volume', snapshots: readonly string[]): RpcError =>
    rpcErrors.call(
      ERRNO.EFAULT,
      `Failed to delete dataset: cannot destroy '${id}': ${kind} has children\nuse '-r' to destroy the following datasets:\n${snapshots.join('\n')}`,
    ),
};

/** The values ZFS takes for `copies`: an index property, "1 | 2 | 3" (zfs_prop.c, zprop_register_index(ZFS_PROP_COPIES)). */
export const COPIES_CHOICES = [1, 2, 3] as const;

/** Whether libzfs takes a `copies` as given (not given and INHERIT are not sent to it). */
export const copiesTaken = (v: unknown): boolean =>
  v === undefined || v === 'INHERIT' || (COPIES_CHOICES as readonly unknown[]).includes(v);

/** ZFS's words for a `copies` outside 1–3 (libzfs zprop_parse_value, PROP_TYPE_INDEX: `'%s' must be one of '%s'`). */
const copiesWords = "'copies' must be one of '1 | 2 | 3'";

/**
 * A refusal by libzfs or ZFS past the middleware's checks, as pool.dataset.update passes it on:
 * libzfs names the action (`zfs_prop_set_list`: "cannot set property for '<name>'") and the cause;
 * py-libzfs raises `ZFSException(code, f'{action}: {description}')` (get_error, py-libzfs
 * TS-25.10.1 libzfs.pyx:686-691); MW/plugins/zfs_/dataset.py:268-271 wraps its repr in a CallError
 * (EFAULT), which pool.dataset.update passes on as it is (ZFSSetPropertyError, the one error it
 * rewords, is never raised in 25.10.1: MW/plugins/pool_/dataset.py:778-782).
 *
 * Confirmed from source: the middleware's part (the model, the `str` transform, the CallError and
 * its text) at TS-25.10.1, py-libzfs's message at its TS-25.10.1 tag, and libzfs's texts
 * (zfs_setprop_error, zprop_parse_value, zfs_prop_set_list's action) in public OpenZFS sources, not
 * read at the exact OpenZFS commit 25.10.1 ships. Not confirmed: that the process pool
 * zfs.dataset.update runs in (`process_pool = True`) hands the CallError back with its text and
 * errno unchanged; it is taken so, as for every other error of that plugin here.
 */
const setPropertyError = (id: string, cause: string): RpcError =>
  rpcErrors.call(
    ERRNO.EFAULT,
    `Failed to update properties: ZFSException(${pyRepr(`cannot set property for '${id}': ${cause}`)})`,
  );

/*
 * How `pool.dataset.update` refuses, in 25.10.1's order and words: the emulator throws these
 * (src/core/appliance/methods/pool-dataset.ts) and `stor dataset update --dry-run` predicts them
 * from reads (src/commands/dataset/update-plan.ts).
 */
export const datasetUpdateRefusal = {
  /** A recordsize not among `pool.dataset.recordsize_choices` (MW/plugins/pool_/dataset.py:301-305; `{rs!r}`). */
  recordsize: (rs: string, schema = 'pool_dataset_update'): ValidationTriple => [
    `${schema}.recordsize`,
    `${pyRepr(rs)} is an invalid recordsize.`,
    ERRNO.EINVAL,
  ],
  /** A filesystem-only field sent for a volume (MW/plugins/pool_/dataset.py:322-326). */
  notForVolume: (field: string): ValidationTriple => [
    `pool_dataset_update.${field}`,
    'This field is not valid for VOLUME',
    ERRNO.EINVAL,
  ],
  /**
   * A `copies` other than 1, 2 or 3: the model takes any int (`copies: int | Literal["INHERIT"]`,
   * MW/api/v25_10_1/pool_dataset.py:228) and the plugin passes it on as `str` (MW/plugins/pool_/dataset.py
   * do_update's `('copies', None, str, True)`); libzfs refuses it before anything is set
   * (zfs_valid_proplist → zprop_parse_value), so nothing else of the call is applied either.
   */
  copies: (id: string): RpcError => setPropertyError(id, copiesWords),
  /**
   * A quota below what the dataset uses (or reserves), a refquota below what it references: the
   * middleware has no check of its own, ZFS refuses with ENOSPC (dsl_dir_set_quota_check,
   * dsl_dataset_set_refquota_check), libzfs words it (zfs_setprop_error).
   */
  quotaBelowUsed: (id: string): RpcError => setPropertyError(id, 'size is less than current used or reserved space'),
  /**
   * A reservation above the quota, a refreservation above the refquota or the space the quota
   * leaves: ZFS refuses with ENOSPC (dsl_dir_set_reservation_check, dsl_dataset_set_refreservation_check),
   * libzfs words it (zfs_setprop_error: ZFS_PROP_RESERVATION, ZFS_PROP_REFRESERVATION).
   */
  reservationAboveAvailable: (id: string): RpcError => setPropertyError(id, 'size is greater than available space'),
};

/*
 * How `pool.dataset.create` refuses past its model, where `stor plan` predicts a file's new dataset
 * (src/commands/state/datasets.ts) and the emulator throws the same.
 */
export const datasetCreateRefusal = {
  /** The plugin's recordsize check, as for an update (MW/plugins/pool_/dataset.py:301-305, schema `pool_dataset_create`). */
  recordsize: (rs: string): ValidationTriple => datasetUpdateRefusal.recordsize(rs, 'pool_dataset_create'),
  /**
   * A `copies` other than 1–3, refused by libzfs (zfs_create → zfs_valid_proplist, action "cannot
   * create '<name>'"); MW/plugins/zfs_/dataset.py:152-154 words it `Failed to create dataset: {e}`
   * (str of the ZFSException, not its repr), EFAULT.
   */
  copies: (name: string): RpcError =>
    rpcErrors.call(ERRNO.EFAULT, `Failed to create dataset: cannot create '${name}': ${copiesWords}`),
};

/** Python's repr of a string, as `{name!r}` prints it. */
export function pyRepr(s: string): string {
  return s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

type Entry = Record<string, unknown>;
const bytes = (v: unknown): number => (typeof v === 'number' ? v : 0);
const parsedOf = (entry: Entry, name: string): number =>
  bytes((entry[name] as { parsed?: unknown } | undefined)?.parsed);

/**
 * What libzfs and ZFS refuse of `pool.dataset.update(id, data)` once the middleware's own checks
 * passed, judged from the dataset's `pool.dataset.query` entry before the call: the one judgement
 * the emulator applies (inside the write transaction that makes the change) and `dataset update
 * --dry-run` and `stor plan` predict.
 *
 * - `copies` outside 1–3: libzfs, before anything is set (datasetUpdateRefusal.copies).
 * - Sizes, in the order zfs.dataset.update sends them (reservations first, quota and refquota
 *   last: MW/plugins/zfs_/dataset.py:181-185), each checked by ZFS against what the others left:
 *   a reservation that grows past what is used and above the quota (dsl_dir_set_reservation_check);
 *   a refreservation that grows past what the dataset references by more than the quota leaves, or
 *   above the refquota (dsl_dataset_set_refreservation_check); a quota below used or the
 *   reservation (dsl_dir_set_quota_check); a refquota below what is referenced or the
 *   refreservation (dsl_dataset_set_refquota_check). One that fails is tried again once after the
 *   rest ("spurious error caused by receiving quota and reservation out of order",
 *   zfs_ioctl.c zfs_set_prop_nvlist), so raising a quota and a reservation together passes. libzfs
 *   reports the last that failed again (zfs_prop_set_list loops over the kernel's error list,
 *   each zfs_setprop_error overwriting the last).
 *
 * Not judged (the emulator enforces no space): the pool's free space and ancestors' quotas, which
 * ZFS also weighs a reservation against. And where ZFS keeps the sizes that passed when another
 * failed, the emulator changes nothing: a refused call is refused whole.
 */
export function zfsUpdateRefusal(
  entry: Entry & { id?: string },
  data: Readonly<Record<string, unknown>>,
): RpcError | null {
  const id = String(entry.id);
  if (!copiesTaken(data.copies)) return datasetUpdateRefusal.copies(id);
  const now = {
    quota: parsedOf(entry, 'quota'),
    refquota: parsedOf(entry, 'refquota'),
    reservation: parsedOf(entry, 'reservation'),
    refreservation: parsedOf(entry, 'refreservation'),
  };
  const used = parsedOf(entry, 'used');
  const referenced = parsedOf(entry, 'usedbydataset');
  type Size = keyof typeof now;
  const refused = (name: Size, v: number): boolean => {
    if (name === 'reservation')
      return Math.max(used, v) > Math.max(used, now.reservation) && now.quota > 0 && v > now.quota;
    if (name === 'refreservation') {
      const grows = Math.max(referenced, v) - Math.max(referenced, now.refreservation);
      return (
        grows > 0 &&
        ((now.quota > 0 && grows > Math.max(0, now.quota - used)) || (now.refquota > 0 && v > now.refquota))
      );
    }
    if (name === 'quota') return v > 0 && (v < used || v < now.reservation);
    return v > 0 && (v < referenced || v < now.refreservation);
  };
  /** Sets what passes; answers what did not. */
  const pass = (names: readonly Size[]): Size[] =>
    names.filter((name) => {
      const v = bytes(data[name]);
      if (refused(name, v)) return true;
      now[name] = v;
      return false;
    });
  const failed = pass(
    pass((['reservation', 'refreservation', 'quota', 'refquota'] as const).filter((name) => name in data)),
  );
  const last = failed.at(-1);
  if (last === undefined) return null;
  return last === 'quota' || last === 'refquota'
    ? datasetUpdateRefusal.quotaBelowUsed(id)
    : datasetUpdateRefusal.reservationAboveAvailable(id);
}
