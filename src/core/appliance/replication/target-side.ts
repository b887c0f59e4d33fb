// The receiving end of a replication from another appliance, over this appliance's store: what
// zettarepl runs on the other box through SSH (`zfs list`, `zfs destroy -r`, `zfs create -p`,
// `zfs recv -s -F`, `zfs set readonly`, retention's `zfs destroy DATASET@…`), served by `stor serve` at /_stor/zfs/ (server/zfs-receive.ts).
// The receive itself is the local engine's (run.ts receiveSnapshot): one transaction a snapshot.

import { listDatasets, updateDataset } from '../../store/datasets.js';
import { listHolds } from '../../store/snapshot-holds.js';
import type { Appliance } from '../appliance.js';
import { isChild } from '../snapshot-tasks/dataset-tree.js';
import type { WorldDataset, WorldSnapshot } from './plan.js';
import { serializedByPool } from '../snapshots/take.js';
import { destroyFree, loadWorld } from './run.js';

/** The target half of a ReplicationWorld, as `zfs list -t all` under the task's target shows it. */
export interface TargetListing {
  /** Every dataset of the target (a missing parent is seen as missing). */
  readonly datasets: readonly WorldDataset[];
  /** The snapshots under the target dataset, with whether they are held. */
  readonly snapshots: readonly (WorldSnapshot & { held: boolean })[];
  /** A mounted filesystem's top-level entries, under the target dataset. */
  readonly listings: Readonly<Record<string, readonly string[]>>;
}

export async function listTarget(appliance: Appliance, root: string): Promise<TargetListing> {
  const world = await loadWorld(appliance, { targetDataset: root });
  const holds = appliance.store.read(() => listHolds(appliance.store.db));
  const under = world.datasets.filter((d) => isChild(d.id, root));
  return {
    datasets: world.datasets.map(({ id, type, readonly }) => ({ id, type, readonly })),
    snapshots: world.snapshots
      .filter((s) => isChild(s.dataset, root))
      .map((s) => ({ ...s, held: holds.has(`${s.dataset}@${s.name}`) })),
    listings: Object.fromEntries(under.map((d) => [d.id, world.listing(d.id)])),
  };
}

/** `zfs set readonly=on` (true), or `zfs inherit readonly` (false), as handle_readonly does (run.py:837-869). */
export function setTargetReadonly(appliance: Appliance, dataset: string, on: boolean): void {
  const { store } = appliance;
  store.write(() => {
    const d = listDatasets(store.db).find((x) => x.id === dataset);
    if (!d) return;
    const properties = { ...d.properties };
    if (on) properties.readonly = 'ON';
    else delete properties.readonly;
    updateDataset(store.db, { ...d, properties });
  });
}

/**
 * Retention's `zfs destroy DATASET@a,b,…` (zettarepl/snapshot/destroy.py:18-61): the named
 * snapshots of one dataset that are not held, one pool's changes at a time (as a receive).
 */
export function destroySnapshotsOf(appliance: Appliance, dataset: string, names: readonly string[]): Promise<string[]> {
  const ids = new Set(names.map((n) => `${dataset}@${n}`));
  return serializedByPool(appliance, dataset.split('/')[0]!, () => destroyFree(appliance, ids));
}
