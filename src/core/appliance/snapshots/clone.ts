import { mkdirSync } from 'node:fs';
import { isValidDatasetName } from '../../contract/pool-dataset.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { insertDataset, listDatasets } from '../../store/datasets.js';
import { listSnapshots, restoreOwners } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { parentOf } from '../datasets/properties.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { sandboxPath } from '../files/places.js';
import { restoreTree } from '../files/tree-copy.js';

/*
 * pool.snapshot.clone (MW/plugins/pool_/snapshot.py:22-25 over MW/plugins/zfs_/snapshot_actions.py:14-37):
 * a new dataset whose files are the snapshot's. ZFS shares the blocks; the emulator copies the
 * snapshot's files into the new mountpoint with their recorded owners. The clone has no `origin`
 * link to its snapshot (the snapshot may be deleted after), and of `dataset_properties` only
 * user properties (`namespace:name`) are kept (docs/RELEASES.md "Emulator behaviours"). Failures are
 * libzfs's `cannot create '<name>': …` after the middleware's prefix, as CallError (EFAULT).
 */

export interface CloneData {
  snapshot: string;
  dataset_dst: string;
  dataset_properties: Record<string, unknown>;
}

export async function cloneSnapshot(appliance: Appliance, data: CloneData): Promise<true> {
  const { store } = appliance;
  const failed = (why: string) => rpcErrors.call(ERRNO.EFAULT, `Failed to clone snapshot: ${why}`);
  const dst = data.dataset_dst;
  const cannot = (why: string) => failed(`cannot create '${dst}': ${why}`);
  const pool = dst.split('/')[0]!;
  const { snapshot, source } = store.write(() => {
    const snapshot = listSnapshots(store.db).find((s) => s.id === data.snapshot);
    // py-libzfs get_snapshot of a missing snapshot, as pool.snapshot.delete reports it.
    if (!snapshot) throw failed(`Snapshot ${data.snapshot} not found`);
    const datasets = listDatasets(store.db);
    const source = datasets.find((d) => d.id === snapshot.dataset)!;
    // libzfs zfs_clone's checks: the name, the pool, the parent, the name taken.
    if (!isValidDatasetName(dst) || !dst.includes('/')) throw cannot('invalid dataset name');
    if (pool !== snapshot.pool) throw cannot('source and target pools differ');
    if (!datasets.some((d) => d.id === parentOf(dst))) throw cannot('parent does not exist');
    if (datasets.some((d) => d.id === dst)) throw cannot('dataset already exists');
    const user = Object.fromEntries(
      Object.entries(data.dataset_properties)
        .filter(([k]) => k.includes(':'))
        .map(([k, v]) => [k, String(v)]),
    );
    // A volume's clone is a volume of the same size and block size.
    const properties: Record<string, unknown> = {};
    for (const k of ['volsize', 'volblocksize'])
      if (Object.hasOwn(source.properties, k)) properties[k] = source.properties[k];
    insertDataset(store.db, {
      id: dst,
      pool,
      properties: properties as typeof source.properties,
      user_properties: user,
      created_at: Date.now(),
    });
    if (!Object.hasOwn(properties, 'volsize')) mkdirSync(sandboxPath(appliance, `/mnt/${dst}`).host, { mode: 0o755 });
    return { snapshot, source };
  });
  if (Object.hasOwn(source.properties, 'volsize')) return true;
  const host = sandboxPath(appliance, `/mnt/${dst}`).host;
  await restoreTree(snapshotCopyDir(appliance, snapshot.copy), host, store.mntDir, new Set());
  // The owners the snapshot recorded, moved from the source's place in the pool to the clone's.
  const rel = (id: string) => id.split('/').slice(1).join('/');
  const [from, to] = [rel(source.id), rel(dst)];
  const moved = snapshot.owners.map(
    ([path, uid, gid]) =>
      [from === '' ? (path === '' ? to : `${to}/${path}`) : `${to}${path.slice(from.length)}`, uid, gid] as [
        string,
        number,
        number,
      ],
  );
  store.write(() => restoreOwners(store.db, pool, to, [], moved));
  return true;
}
