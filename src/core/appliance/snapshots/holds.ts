import { ERRNO, rpcErrors, type RpcError } from '../../errors.js';
import { pyRepr } from '../../python-repr.js';
import { deleteHold, insertHold, listHolds } from '../../store/snapshot-holds.js';
import { listSnapshots } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';

/*
 * pool.snapshot.hold / release (MW/plugins/pool_/snapshot.py:31-47 over
 * MW/plugins/zfs_/snapshot_actions.py:84-118): the `truenas` tag in a snapshot's hold set, which
 * keeps `zfs destroy` from removing it. Failures are py-libzfs's texts after the middleware's
 * prefix, as CallError (errno EFAULT).
 */

/** The one tag the API places (snapshot_actions.py:97). */
export const HOLD_TAG = 'truenas';

const splitId = (id: string): [string, string] => {
  const at = id.indexOf('@');
  return at < 0 ? [id, ''] : [id.slice(0, at), id.slice(at + 1)];
};
const isWithin = (id: string, root: string) => id === root || id.startsWith(`${root}/`);

/** The snapshot and, with `recursive`, the snapshots of the same name on its dataset's descendants (`zfs hold -r`). */
function covered(ids: readonly string[], id: string, recursive: boolean): string[] {
  const [dataset, name] = splitId(id);
  return recursive ? ids.filter((s) => splitId(s)[1] === name && isWithin(splitId(s)[0], dataset)) : [id];
}

/** py-libzfs `get_snapshot` of a missing snapshot: `Snapshot NAME not found` (as pool.snapshot.delete reports it). */
const missing = (verb: 'hold' | 'release', id: string) =>
  rpcErrors.call(ERRNO.EFAULT, `Failed to ${verb} snapshot: Snapshot ${id} not found`);

export function holdSnapshot(appliance: Appliance, id: string, recursive: boolean): null {
  const { store } = appliance;
  store.write(() => {
    const ids = listSnapshots(store.db).map((s) => s.id);
    if (!ids.includes(id)) throw missing('hold', id);
    const holds = listHolds(store.db);
    const targets = covered(ids, id, recursive);
    // libzfs zfs_hold_nvl: EEXIST is EZFS_REFTAG_HOLD, "tag already exists on this dataset"; nothing is held then.
    const clash = targets.find((t) => holds.get(t)?.has(HOLD_TAG));
    if (clash)
      throw rpcErrors.call(
        ERRNO.EFAULT,
        `Failed to hold snapshot: cannot hold snapshot '${clash}': tag already exists on this dataset`,
      );
    const now = Date.now();
    for (const t of targets) insertHold(store.db, t, HOLD_TAG, now);
  });
  return null;
}

/** Every tag the snapshot holds is released, on it and (recursive) on its children's same-named snapshots that hold it. */
export function releaseSnapshot(appliance: Appliance, id: string, recursive: boolean): null {
  const { store } = appliance;
  store.write(() => {
    const ids = listSnapshots(store.db).map((s) => s.id);
    if (!ids.includes(id)) throw missing('release', id);
    const holds = listHolds(store.db);
    // snapshot_actions.py:114-116: only the tags present on the snapshot itself.
    for (const tag of holds.get(id)?.keys() ?? []) {
      for (const t of covered(ids, id, recursive)) if (holds.get(t)?.has(tag)) deleteHold(store.db, t, tag);
    }
  });
  return null;
}

/** Tags held per snapshot and when each was placed, in whole seconds (py-libzfs `holds`). */
export function holdsOf(appliance: Appliance): Map<string, Map<string, number>> {
  return appliance.store.read(() => listHolds(appliance.store.db));
}

/*
 * 26.0's hold and release (stable/26 and TS-26.0.0-BETA.3 MW/plugins/pool_/snapshot.py:66-90) call
 * zfs.resource.snapshot's private hold_impl/release_impl (MW/plugins/zfs/snapshot_crud.py:577-592,
 * 690-705), whose exceptions reach the client as they are (MW/plugins/zfs/snapshot_hold_release_impl.py,
 * MW/plugins/zfs/exceptions.py): no `Failed to … snapshot:` CallError any more.
 */

/** An exception with one text argument, as Python reports it: str() the text, repr() the call. */
export const textException = (cls: string, text: string) => rpcErrors.exception(cls, text, `${cls}(${pyRepr(text)})`);

/**
 * has_internal_path (MW/plugins/zfs/utils.py:44-61 at TS-26.0.0-BETA.3): a boot pool
 * (`BOOT_POOL_NAME_VALID`, MW/utils/__init__.py:37) or anything in it, or `ix-apps`,
 * `ix-applications` or `.system` right under a pool (INTERNAL_PATHS, utils.py:20-24).
 */
function hasInternalPath(path: string): boolean {
  const components = path.split('/');
  if (components[0] === 'freenas-boot' || components[0] === 'boot-pool') return true;
  return components.length > 1 && ['ix-apps', 'ix-applications', '.system'].includes(components[1]!);
}

/**
 * 26.0's zfs.resource.snapshot `*_impl` refuse an internal path before anything else, by its name
 * alone (the dataset part of a snapshot's): `ValidationError(schema, f"{path!r} is a protected
 * path.", errno.EACCES)` (MW/plugins/zfs/snapshot_crud.py:580-584 hold, :693-697 release,
 * :408-414 clone, :757-761 rollback, :215-222 destroy, :488-493 create at TS-26.0.0-BETA.3).
 * `method` is the schema's last word; `checked` what is judged (clone judges its target's name
 * whole, `@` and all; create the dataset it is given).
 */
export function refuseInternalPath26(
  method: 'hold' | 'release' | 'clone' | 'rollback' | 'destroy' | 'create',
  path: string,
  checked = path.includes('@') ? path.split('@')[0]! : path,
): void {
  if (hasInternalPath(checked))
    throw rpcErrors.validationOne(
      `zfs.resource.snapshot.${method}`,
      `${pyRepr(path)} is a protected path.`,
      ERRNO.EACCES,
    );
}

/** `"@" not in path` (snapshot_hold_release_impl.py:89-90, 136-137). */
export const notASnapshot26 = (path: string) =>
  textException('ZFSPathNotASnapshotException', `${pyRepr(path)} must be a snapshot path (containing '@')`);

/** open_resource's EZFS_NOENT (snapshot_hold_release_impl.py:54-57, 98-103). */
export const pathNotFound26 = (path: string) => textException('ZFSPathNotFoundException', `${pyRepr(path)} not found`);

/**
 * The snapshots hold_impl/release_impl act on: the snapshot, and with `recursive` the same name on
 * every dataset below its own (`_collect_recursive_snapshots`, :36-71); the snapshot itself must exist.
 */
function targets26(ids: readonly string[], path: string, recursive: boolean): string[] {
  if (!path.includes('@')) throw notASnapshot26(path);
  if (!ids.includes(path)) throw pathNotFound26(path);
  const at = path.lastIndexOf('@');
  const [dataset, name] = [path.slice(0, at), path.slice(at + 1)];
  return recursive
    ? ids.filter((s) => s.endsWith(`@${name}`) && isWithin(s.slice(0, -name.length - 1), dataset))
    : [path];
}

/**
 * A `truenas_pylibzfs.lzc` call's failure: ZFSCoreException, whose args are the message and the
 * (snapshot, errno) pairs (py_zfs_core_module.c set_zfscore_exc at truenas_pylibzfs TS-26.0.0-BETA.2).
 */
export function zfsCoreException(message: string, failures: readonly (readonly [string, number])[]): RpcError {
  const pairs = failures.map(([s, errno]) => `(${pyRepr(s)}, ${errno})`);
  const args = `${pyRepr(message)}, (${pairs.join(', ')}${pairs.length === 1 ? ',' : ''})`;
  return rpcErrors.exception('ZFSCoreException', `(${args})`, `ZFSCoreException(${args})`);
}

/**
 * `truenas_pylibzfs.lzc.create_holds` of a tag a snapshot holds already: lzc_hold fails EEXIST for
 * each (dsl_dataset_user_hold_check_one) and nothing is held.
 */
const holdFailed = (snapshots: readonly string[]): RpcError =>
  zfsCoreException(
    'lzc_hold() failed',
    snapshots.map((s) => [s, ERRNO.EEXIST] as const),
  );

export function holdSnapshot26(appliance: Appliance, id: string, recursive: boolean): null {
  refuseInternalPath26('hold', id);
  const { store } = appliance;
  store.write(() => {
    const targets = targets26(
      listSnapshots(store.db).map((s) => s.id),
      id,
      recursive,
    );
    const holds = listHolds(store.db);
    const clashes = targets.filter((t) => holds.get(t)?.has(HOLD_TAG));
    if (clashes.length > 0) throw holdFailed(clashes);
    const now = Date.now();
    for (const t of targets) insertHold(store.db, t, HOLD_TAG, now);
  });
  return null;
}

/** Every tag of every snapshot acted on (`tag=None`: each one's own holds, :148-160). */
export function releaseSnapshot26(appliance: Appliance, id: string, recursive: boolean): null {
  refuseInternalPath26('release', id);
  const { store } = appliance;
  store.write(() => {
    const targets = targets26(
      listSnapshots(store.db).map((s) => s.id),
      id,
      recursive,
    );
    const holds = listHolds(store.db);
    for (const t of targets) for (const tag of holds.get(t)?.keys() ?? []) deleteHold(store.db, t, tag);
  });
  return null;
}
