import { mkdirSync } from 'node:fs';
import { isValidDatasetName } from '../../contract/pool-dataset.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { pyRepr } from '../../python-repr.js';
import { insertDataset, listDatasets } from '../../store/datasets.js';
import { listSnapshots, restoreOwners } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { parentOf } from '../datasets/properties.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { sandboxPath } from '../files/places.js';
import { restoreTree } from '../files/tree-copy.js';
import { notASnapshot26, pathNotFound26, refuseInternalPath26, textException } from './holds.js';

/*
 * pool.snapshot.clone (MW/plugins/pool_/snapshot.py:22-25 over MW/plugins/zfs_/snapshot_actions.py:14-37):
 * a new dataset whose files are the snapshot's. ZFS shares the blocks; the emulator copies the
 * snapshot's files into the new mountpoint with their recorded owners. The clone has no `origin`
 * link to its snapshot (the snapshot may be deleted after), and of `dataset_properties` only
 * user properties (`namespace:name`) are kept (docs/RELEASES.md "Emulator behaviours"). Failures are
 * libzfs's `cannot create '<name>': …` after the middleware's prefix, as CallError (EFAULT).
 *
 * 26.0 (MW/plugins/pool_/snapshot.py:46-55 at TS-26.0.0-BETA.3, the same on stable/26) calls the
 * private zfs.resource.snapshot.clone_impl (MW/plugins/zfs/snapshot_crud.py:396-421), so the
 * exceptions of MW/plugins/zfs/rename_promote_clone_impl.py:21-52 reach the client as they are
 * (refused26): not the public clone's ValidationErrors (snapshot_crud.py:456-484), which it skips.
 */

export interface CloneData {
  snapshot: string;
  dataset_dst: string;
  dataset_properties: Record<string, unknown>;
}

/**
 * truenas_pylibzfs's ZFSException as `str()` writes it: `[EZFS_…]: <call> failed - <libzfs action>:
 * <libzfs description>` (set_exc_from_libzfs, src/common/error.c:137-142 at truenas_pylibzfs
 * TS-26.0.0-BETA.2); its one argument is that text.
 */
const zfsException = (name: string, call: string, action: string, description: string) =>
  textException('ZFSException', `[${name}]: ${call} failed - ${action}: ${description}`);

/**
 * 26.0's clone_impl refusals, in its order: the snapshot opened (ZFSPathNotFoundException for
 * libzfs's EZFS_NOENT, ZFSPathNotASnapshotException for a dataset, rename_promote_clone_impl.py:35-37,
 * utils.py:123-133), the target opened (ZFSPathAlreadyExistsException when it is there, :42-47), then
 * libzfs zfs_clone's own checks on the target, raised by `ZFSSnapshot.clone` as ZFSException
 * (py_zfs_snapshot.c:211-221): check_parents' `missing dataset name` for a pool's name, `no such pool`,
 * `parent does not exist` (OpenZFS lib/libzfs/libzfs_dataset.c check_parents, action `cannot create
 * '<target>'`). A name zfs_open or zfs_validate_name refuses keeps 25.10.1's texts below
 * (docs/RELEASES.md).
 */
function refused26(data: CloneData, found: boolean, datasets: readonly { id: string }[]): void {
  const exists = (id: string) => datasets.some((d) => d.id === id);
  if (!found) {
    if (!data.snapshot.includes('@') && exists(data.snapshot)) throw notASnapshot26(data.snapshot);
    if (isValidPath(data.snapshot)) throw pathNotFound26(data.snapshot);
    return;
  }
  const dst = data.dataset_dst;
  if (exists(dst)) throw textException('ZFSPathAlreadyExistsException', `${pyRepr(dst)} already exists`);
  if (!isValidDatasetName(dst)) return;
  const cannot = (name: string, why: string) => zfsException(name, 'zfs_clone()', `cannot create '${dst}'`, why);
  const pool = dst.split('/')[0]!;
  if (!dst.includes('/')) throw cannot('EZFS_INVALIDNAME', 'missing dataset name');
  if (!exists(pool)) throw cannot('EZFS_NOENT', `no such pool '${pool}'`);
  if (!exists(parentOf(dst)!)) throw cannot('EZFS_NOENT', 'parent does not exist');
  // lzc_clone's EXDEV (zfs_clone's switch after it).
  if (pool !== data.snapshot.split(/[/@]/)[0]) throw cannot('EZFS_CROSSTARGET', 'source and target pools differ');
}

/** A name zfs_open's zfs_validate_name takes: a dataset's, or a dataset's and one snapshot name after `@`. */
function isValidPath(path: string): boolean {
  const [dataset, ...snap] = path.split('@');
  return (
    isValidDatasetName(dataset!) && (snap.length === 0 || (snap.length === 1 && /^[A-Za-z0-9_.: -]+$/.test(snap[0]!)))
  );
}

export async function cloneSnapshot(appliance: Appliance, data: CloneData): Promise<true> {
  const { store } = appliance;
  const failed = (why: string) => rpcErrors.call(ERRNO.EFAULT, `Failed to clone snapshot: ${why}`);
  const dst = data.dataset_dst;
  const cannot = (why: string) => failed(`cannot create '${dst}': ${why}`);
  const pool = dst.split('/')[0]!;
  if (appliance.release.snapshotActionsThroughZfsResource) {
    // clone_impl's protected paths, the source's dataset then the target, before it opens either
    // (MW/plugins/zfs/snapshot_crud.py:408-414 at TS-26.0.0-BETA.3); its check of special_small_blocks
    // before them (:399-405) needs ZFS tiering on, which the emulator never has.
    refuseInternalPath26('clone', data.snapshot);
    refuseInternalPath26('clone', dst, dst);
  }
  const { snapshot, source } = store.write(() => {
    const snapshot = listSnapshots(store.db).find((s) => s.id === data.snapshot);
    const datasets = listDatasets(store.db);
    if (appliance.release.snapshotActionsThroughZfsResource) refused26(data, snapshot !== undefined, datasets);
    // py-libzfs get_snapshot of a missing snapshot, as pool.snapshot.delete reports it.
    if (!snapshot) throw failed(`Snapshot ${data.snapshot} not found`);
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
