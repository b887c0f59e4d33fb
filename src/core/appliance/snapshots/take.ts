import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { ERRNO, rpcErrors } from '../../errors.js';
import type { DatasetRecord } from '../../store/datasets.js';
import { datasetOwners, insertSnapshot, listSnapshots, type SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { datasetType, parentOf } from '../datasets/properties.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { sandboxPath } from '../files/places.js';
import { keyedQueue } from '../files/keyed-queue.js';
import { copyTree } from '../files/tree-copy.js';
import { removeTree } from '../files/tree-walk.js';
import { noteCopyInFlight, snapshotsDir } from '../jobs/stray-snapshot-copies.js';

// Taking a snapshot on the emulator's files (methods/pool-snapshot.ts describes the model): what
// pool.snapshot.create and a periodic snapshot task's run (snapshot-tasks/run.ts) both do.

/**
 * Snapshot operations on one pool run one at a time: a copy, a rollback and a destroy of the same
 * tree must not interleave (ZFS serialises them in the kernel).
 */
export const serializedByPool = keyedQueue();

export const isWithin = (id: string, root: string) => id === root || id.startsWith(`${root}/`);

/** A filesystem dataset's mountpoint on this machine and its children's (which its copy leaves out). */
export function mountOf(
  appliance: Appliance,
  d: DatasetRecord,
  all: readonly DatasetRecord[],
): { host: string; skip: Set<string>; rel: string; childRels: string[] } | null {
  if (datasetType(d) !== 'FILESYSTEM') return null;
  const children = all.filter((c) => parentOf(c.id) === d.id);
  const relOf = (id: string) => id.split('/').slice(1).join('/');
  return {
    host: sandboxPath(appliance, `/mnt/${d.id}`).host,
    skip: new Set(children.map((c) => sandboxPath(appliance, `/mnt/${c.id}`).host)),
    rel: relOf(d.id),
    childRels: children.map((c) => relOf(c.id)),
  };
}

export interface TakeSnapshot {
  dataset: string;
  name: string;
  recursive: boolean;
  /** Whether a descendant is left out (`zfs snapshot -r` with the middleware's or zettarepl's exclude rules). */
  excluded: (dataset: string) => boolean;
  /** User properties (`namespace:name`) to set on each snapshot. */
  properties: Record<string, unknown>;
  /** When the snapshot is taken, in milliseconds since the epoch. */
  at: number;
}

/**
 * `zfs snapshot [-r] DATASET@NAME`: one snapshot of the dataset, and of each descendant not
 * excluded when recursive, all under the pool's queue; answers the records made. Failures read as
 * `zfs.snapshot.create` raises them (MW/plugins/zfs_/snapshot.py:172-200): `Failed to snapshot …`.
 */
export async function takeSnapshots(appliance: Appliance, take: TakeSnapshot): Promise<SnapshotRecord[]> {
  const { name } = take;
  const full = `${take.dataset}@${name}`;
  const failed = (why: string, errno: number = ERRNO.EFAULT) =>
    rpcErrors.call(errno, `Failed to snapshot ${full}: ${why}`);
  const { store } = appliance;
  return serializedByPool(appliance, take.dataset.split('/')[0]!, async () => {
    const all = appliance.datasets();
    const target = all.find((d) => d.id === take.dataset);
    // py-libzfs `get_dataset` (libzfs.pyx), raised through the ZFSException handler.
    if (!target) throw failed(`Dataset ${take.dataset} not found`);
    // Derived: ZFS takes only user properties (namespace:name) on a snapshot.
    const invalid = Object.keys(take.properties).find((k) => !k.includes(':'));
    if (invalid !== undefined) throw failed(`cannot create snapshot '${full}': invalid property '${invalid}'`);
    const covered = take.recursive ? all.filter((d) => isWithin(d.id, target.id) && !take.excluded(d.id)) : [target];
    const taken = () => {
      const ids = new Set(listSnapshots(store.db).map((s) => s.id));
      const clash = covered.find((d) => ids.has(`${d.id}@${name}`));
      // ZFS's text for EEXIST; middleware then picks errno EEXIST for 'already exists'.
      if (clash) throw failed(`cannot create snapshot '${clash.id}@${name}': dataset already exists`, ERRNO.EEXIST);
    };
    store.read(taken);
    const copies: { d: DatasetRecord; copy: string; referenced: number }[] = [];
    const forget: (() => Promise<void>)[] = [];
    try {
      for (const d of covered) {
        const taking = { d, copy: randomUUID(), referenced: 0 };
        // Listed before the copy starts, so a failed copy is cleaned up too, and noted in the
        // state so that a killed process's half copy is swept at the next start.
        copies.push(taking);
        forget.push(await noteCopyInFlight(store.stateDir, taking.copy));
        const mount = mountOf(appliance, d, all);
        const dir = snapshotCopyDir(appliance, taking.copy);
        if (mount) taking.referenced = await copyTree(mount.host, store.mntDir, dir, mount.skip);
        else await mkdir(dir, { recursive: true, mode: 0o700 });
      }
      store.write(() => {
        taken();
        for (const { d, copy, referenced } of copies) {
          const mount = mountOf(appliance, d, all);
          insertSnapshot(store.db, {
            id: `${d.id}@${name}`,
            dataset: d.id,
            pool: d.pool,
            copy,
            referenced,
            guid: randomBytes(8).readBigUInt64BE().toString(),
            user_properties: Object.fromEntries(Object.entries(take.properties).map(([k, v]) => [k, String(v)])),
            owners: mount ? datasetOwners(store.db, d.pool, mount.rel, mount.childRels) : [],
            created_at: take.at,
          });
        }
      });
    } catch (err) {
      for (const { copy } of copies) await removeTree(snapshotCopyDir(appliance, copy), snapshotsDir(store.stateDir));
      throw err;
    } finally {
      for (const f of forget) await f();
    }
    const made = new Set(copies.map((c) => `${c.d.id}@${name}`));
    return listSnapshots(store.db).filter((s) => made.has(s.id));
  });
}
