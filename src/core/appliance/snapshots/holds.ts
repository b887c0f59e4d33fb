import { ERRNO, rpcErrors } from '../../errors.js';
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
