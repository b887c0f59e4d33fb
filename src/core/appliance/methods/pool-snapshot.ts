import { isValidDatasetName } from '../../contract/pool-dataset.js';
import {
  poolSnapshotContract,
  type PoolSnapshotCreate,
  type PoolSnapshotEntry,
  type PoolSnapshotRollbackOptions,
} from '../../contract/pool-snapshot.js';
import { applianceStrftime } from '../snapshot-tasks/appliance-clock.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { snapshotRollbackRefusal } from '../../refusals/pool-snapshot.js';
import { deleteSnapshots, listSnapshots, restoreOwners, type SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { creationShown } from '../datasets/properties.js';
import { implement } from '../method.js';
import { applyQuery, parseQueryArgs, type QueryFilters, type QueryOptions } from '../query/index.js';
import { filterAttrs } from '../query/filter-attrs.js';
import { snapshotRetention } from '../snapshot-tasks/annotate-retention.js';
import { snapshotsDir } from '../jobs/stray-snapshot-copies.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { restoreTree } from '../files/tree-copy.js';
import { removeTree } from '../files/tree-walk.js';
import { cloneSnapshot } from '../snapshots/clone.js';
import { isWithin, mountOf, serializedByPool, takeSnapshots } from '../snapshots/take.js';
import {
  holdSnapshot,
  holdSnapshot26,
  holdsOf,
  notASnapshot26,
  pathNotFound26,
  refuseInternalPath26,
  releaseSnapshot,
  releaseSnapshot26,
  zfsCoreException,
} from '../snapshots/holds.js';
import { pyRepr } from '../../python-repr.js';
import { listHolds } from '../../store/snapshot-holds.js';
import { poolSnapshotContract26 } from '../../contract/v26_0_0/pool-snapshot.js';
import { isEmptySnapshot } from '../snapshots/written.js';
import { pyFloatText, setPyNumber, withPyNumbers } from '../py-numbers.js';

// The handlers of contract/pool-snapshot.ts.

/*
 * 25.10.1's pool.snapshot (MW/plugins/pool_/snapshot.py over MW/plugins/zfs_/snapshot.py and
 * snapshot_actions.py) on the emulator's files: a snapshot is a row and a copy of the dataset's
 * own files (not its children's: they have snapshots of their own) under `<state>/snapshots/`,
 * outside the tree the API serves. Rollback puts the bytes, modes, times and recorded owners back
 * and removes what was created since. Not emulated: ZFS's atomicity (a copy takes as long as the
 * tree, and a write during it may or may not be in it), space accounting (`used` of a snapshot is
 * 0; datasets' usedbysnapshots stays 0), clones, bookmarks, `.zfs/snapshot`, VMware sync; holds are
 * rows (snapshots/holds.ts) that keep a delete away.
 */

/** `libzfs.validate_snapshot_name` (ZFS `snapshot_namecheck`): DATASET@NAME, one `@`, under 256 bytes. */
export function isValidSnapshotName(full: string): boolean {
  const at = full.indexOf('@');
  if (at < 0 || Buffer.byteLength(full) >= 256) return false;
  const snap = full.slice(at + 1);
  return isValidDatasetName(full.slice(0, at)) && /^[A-Za-z0-9_.: -]+$/.test(snap);
}

/** `zfs_nicebytes`: 512B, 1.50K, 96K, 2.25M — what `zfs get` shows as the value. */
function zfsNiceBytes(n: number): string {
  const units = ['B', 'K', 'M', 'G', 'T', 'P', 'E'];
  let u = 0;
  while (u < units.length - 1 && n >= 1024 ** (u + 1)) u++;
  if (u === 0 || n % 1024 ** u === 0) return `${n / 1024 ** u}${units[u]}`;
  for (const digits of [2, 1, 0]) {
    const s = `${(n / 1024 ** u).toFixed(digits)}${units[u]}`;
    if (s.length <= 5 || digits === 0) return s;
  }
  return `${n}B`;
}

type SnapshotProperty = PoolSnapshotEntry['properties'][string];

const native = (value: string, parsed: unknown = value): SnapshotProperty => ({
  value,
  rawvalue: value,
  source: 'NONE',
  parsed,
});
const bytes = (n: number): SnapshotProperty => ({
  value: zfsNiceBytes(n),
  rawvalue: String(n),
  source: 'NONE',
  parsed: n,
});

/**
 * The properties ZFS knows for a snapshot: those zfs_prop_valid_for_type gives ZFS_TYPE_SNAPSHOT
 * (OpenZFS module/zcommon/zfs_prop.c, zfs_prop_init), hidden ones included, as py-libzfs lists them
 * (zprop_iter with show_all, libzfs.pyx `ZFS.__cinit__` at its TS-25.10.1). Whether what
 * `extra.properties` keeps of them is more than `name` and `createtxg` decides whether the entry
 * has `properties` at all; the emulator shows only those it keeps (entryOf).
 */
const ZFS_SNAPSHOT_PROPERTIES = [
  'type', 'creation', 'used', 'referenced', 'compressratio', 'refcompressratio', 'createtxg', 'guid',
  'name', 'defer_destroy', 'userrefs', 'clones', 'numclones', 'written', 'logicalreferenced', 'objsetid',
  'encryption', 'encryptionroot', 'keystatus', 'keyguid', 'ivsetguid', 'redact_snaps', 'redacted',
  'acltype', 'primarycache', 'secondarycache', 'prefetch', 'xattr', 'devices', 'exec', 'setuid', 'nbmand',
  'version', 'normalization', 'casesensitivity', 'utf8only', 'mlslabel', 'context', 'fscontext',
  'defcontext', 'rootcontext', 'volsize', 'useraccounting', 'unique', 'inconsistent', 'remaptxg',
]; // prettier-ignore

/** Whether a JSON value is true in Python (`props or []`). */
const pyTruthy = (v: unknown): boolean =>
  Array.isArray(v)
    ? v.length > 0
    : typeof v === 'object' && v !== null
      ? Object.keys(v).length > 0
      : v !== undefined && v !== null && v !== false && v !== 0 && v !== '';

/**
 * `extra.properties` as py-libzfs reads it (`props = props or []`, then `if not props or prop_name
 * in props`, libzfs.pyx `_snapshots_snaplist_arg` at TS-25.10.1): null when every property is
 * listed; else whether a name is kept — an item of a list, a key of a dict, a part of a string.
 * Anything else is `in`'s TypeError.
 */
function keptProperties(props: unknown): ((name: string) => boolean) | null {
  if (!pyTruthy(props)) return null;
  if (typeof props === 'string') return (name) => props.includes(name);
  if (Array.isArray(props)) return (name) => props.includes(name);
  if (typeof props === 'object' && props !== null) return (name) => Object.hasOwn(props, name);
  throw rpcErrors.exception('TypeError', `argument of type '${pyTypeName(props)}' is not iterable`);
}

/**
 * An entry as `zfs.snapshots_serialized` builds it (py-libzfs `__snapshot_details`): user
 * properties first, then the snapshot properties `kept` keeps (all when null); no `properties` when
 * those are only `name` and `createtxg` (`simple_handle`), user properties included. Its keys in
 * PoolSnapshotEntry's order, `id` first (MW/api/v25_10_1/pool_snapshot.py:83-106 at TS-25.10.1): the
 * answer is dumped through the method's result model (MW/api/base/handler/result.py:13-17), which
 * writes a model's fields in their declared order, not in py-libzfs's (`properties` first, `id`
 * after `dataset`, libzfs.pyx:1148-1160).
 */
function entryOf(s: SnapshotRecord, kept: ((name: string) => boolean) | null = null, userrefs = 0): PoolSnapshotEntry {
  const [dataset, name] = splitId(s.id);
  const tail = { pool: s.pool, name: s.id, type: 'SNAPSHOT' as const, snapshot_name: name, dataset };
  const simple = kept !== null && ZFS_SNAPSHOT_PROPERTIES.every((p) => !kept(p) || p === 'name' || p === 'createtxg');
  if (simple) return { id: s.id, ...tail, createtxg: String(s.txg) } as PoolSnapshotEntry;
  const seconds = Math.floor(s.created_at / 1000);
  const properties: Record<string, SnapshotProperty> = {};
  for (const [key, value] of Object.entries(s.user_properties))
    properties[key] = { value, rawvalue: value, source: 'LOCAL', parsed: value };
  // zfs_prop_get writes a ratio `1.00x`, literally `1.00`; py-libzfs has no converter for
  // compressratio and a str one for refcompressratio (converter.pxi at TS-25.10.1), so parsed is the text.
  const ratio: SnapshotProperty = { value: '1.00x', rawvalue: '1.00', source: 'NONE', parsed: '1.00' };
  const all: [string, () => SnapshotProperty][] = [
    ['type', () => native('snapshot')],
    [
      'creation',
      () => ({
        value: creationShown(s.created_at),
        rawvalue: String(seconds),
        source: 'NONE',
        parsed: { $date: seconds * 1000 },
      }),
    ],
    ['used', () => bytes(0)],
    ['referenced', () => bytes(s.referenced)],
    ['compressratio', () => ({ ...ratio })],
    ['createtxg', () => native(String(s.txg))],
    ['guid', () => native(s.guid)],
    ['defer_destroy', () => native('off')],
    ['userrefs', () => native(String(userrefs))],
    ['clones', () => native('')],
    ['refcompressratio', () => ({ ...ratio })],
    ['logicalreferenced', () => bytes(s.referenced)],
  ];
  for (const [prop, make] of all) if (!kept || kept(prop)) properties[prop] = make();
  return { id: s.id, properties, ...tail, createtxg: String(s.txg) };
}

const splitId = (id: string): [string, string] => {
  const at = id.indexOf('@');
  return at < 0 ? [id, ''] : [id.slice(0, at), id.slice(at + 1)];
};

/** Snapshots in the order ZFS lists them: a dataset's own, oldest first, then its children's, depth first. */
function ordered(snapshots: SnapshotRecord[]): SnapshotRecord[] {
  const key = (s: SnapshotRecord) => s.dataset.split('/');
  return [...snapshots].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    return ka.length - kb.length || a.txg - b.txg;
  });
}

/** `zfs.snapshot.create`'s checks in its order (MW/plugins/zfs_/snapshot.py:140-170). */
function validateCreate(data: PoolSnapshotCreate, name: string): void {
  const errors: ValidationTriple[] = [];
  if (data.exclude.length > 0) {
    if (!data.recursive)
      errors.push(['snapshot_create.exclude', 'This option has no sense for non-recursive snapshots', ERRNO.EINVAL]);
    if (data.vmware_sync)
      errors.push([
        'snapshot_create.vmware_sync',
        'This option is not supported when excluding datasets',
        ERRNO.EINVAL,
      ]);
    if (Object.keys(data.properties).length > 0)
      errors.push(['snapshot_create.properties', 'This option is not supported when excluding datasets', ERRNO.EINVAL]);
  }
  if (!isValidSnapshotName(`${data.dataset}@${name}`))
    errors.push(['snapshot_create.name', 'Invalid snapshot name', ERRNO.EINVAL]);
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

async function create(appliance: Appliance, data: PoolSnapshotCreate): Promise<PoolSnapshotEntry> {
  return entryOf(await createRecord(appliance, data));
}

async function createRecord(appliance: Appliance, data: PoolSnapshotCreate): Promise<SnapshotRecord> {
  // `replication.new_snapshot_name`: `datetime.now().strftime(naming_schema)`, a naive time
  // (MW/plugins/replication.py:631-632), so `%z` is empty; the middleware's local time is the
  // appliance's zone, the one its periodic snapshot tasks are named in.
  const name = 'name' in data ? data.name : applianceStrftime(data.naming_schema, appliance.now());
  validateCreate(data, name);
  // 26.0's create_impl refuses a protected dataset before it opens it (MW/plugins/zfs/snapshot_crud.py:488-493).
  if (appliance.release.snapshotActionsThroughZfsResource) refuseInternalPath26('create', data.dataset);
  const made = await takeSnapshots(appliance, {
    dataset: data.dataset,
    name,
    recursive: data.recursive,
    excluded: (id) => data.exclude.some((e) => isWithin(id, e)),
    properties: data.properties,
    at: appliance.now(),
  });
  return made.find((s) => s.id === `${data.dataset}@${name}`)!;
}

/**
 * What 26.0's delete destroys (zfs.resource.snapshot.destroy, MW/plugins/zfs/snapshot_crud.py:239-306
 * over MW/plugins/zfs/destroy_impl.py at TS-26.0.0-BETA.3), its refusals as ValidationErrors of
 * `zfs.resource.snapshot.destroy`, ENOENT made InstanceNotFound (MW/plugins/pool_/snapshot.py:377-386).
 * One snapshot: it must exist and hold no tag (destroy_nonrecursive_impl, :22-32, ZFSPathHasHoldsException).
 * Recursive: the DESTROY_SNAPSHOTS channel program takes every snapshot of that name at or below
 * the dataset; the holds it meets are released and it runs again (destroy_impl.py:117-120), so
 * held snapshots go too, and a name nothing has is no error.
 */
function doomed26(appliance: Appliance, all: SnapshotRecord[], id: string, recursive: boolean): SnapshotRecord[] {
  const [dataset, name] = splitId(id);
  let gone = all.filter((s) => isWithin(s.dataset, dataset) && splitId(s.id)[1] === name);
  if (!recursive) {
    gone = all.filter((s) => s.id === id);
    if (gone.length === 0) throw rpcErrors.instanceNotFoundText(`${pyRepr(id)} not found`);
    const tags = [...(listHolds(appliance.store.db).get(id)?.keys() ?? [])];
    if (tags.length > 0)
      throw rpcErrors.validation([
        ['zfs.resource.snapshot.destroy', `${pyRepr(id)} has the following holds: ${tags.join(',')}`, ERRNO.EBUSY],
      ]);
  }
  // Their holds go with the rows (snapshot_holds ON DELETE CASCADE).
  deleteSnapshots(
    appliance.store.db,
    gone.map((s) => s.id),
  );
  return gone;
}

async function destroy(appliance: Appliance, id: string, recursive: boolean): Promise<true> {
  const { store } = appliance;
  const through26 = appliance.release.snapshotActionsThroughZfsResource;
  // 26.0's do_delete: no `@`, no call (stable/26 MW/plugins/pool_/snapshot.py:374-375).
  if (through26 && !id.includes('@'))
    throw rpcErrors.validation([['pool.snapshot.delete', `Invalid snapshot name: ${pyRepr(id)}`, ERRNO.EINVAL]]);
  // destroy_impl's protected paths, before the snapshot is looked for; do_delete passes on any
  // ValidationError but ENOENT's (MW/plugins/zfs/snapshot_crud.py:215-222, MW/plugins/pool_/snapshot.py:377-386).
  if (through26) refuseInternalPath26('destroy', id);
  const [dataset, name] = splitId(id);
  return serializedByPool(appliance, dataset.split('/')[0]!, async () => {
    const doomed = store.write(() => {
      const all = listSnapshots(store.db);
      if (through26) return doomed26(appliance, all, id, recursive);
      // py-libzfs `get_snapshot`'s NOENT becomes InstanceNotFound(str(e)) (MW/plugins/zfs_/snapshot.py:222-224).
      if (!all.some((s) => s.id === id)) throw rpcErrors.instanceNotFoundText(`Snapshot ${id} not found`);
      // `zfs destroy -r DATASET@NAME`: the same name on every descendant too.
      const gone = recursive
        ? all.filter((s) => isWithin(s.dataset, dataset) && splitId(s.id)[1] === name)
        : all.filter((s) => s.id === id);
      // A held snapshot: zfs_destroy's EBUSY, raised as CallError(str(e)) (MW/plugins/zfs_/snapshot.py:242-260).
      const holds = listHolds(store.db);
      const held = gone.find((s) => (holds.get(s.id)?.size ?? 0) > 0);
      if (held) throw rpcErrors.call(ERRNO.EFAULT, `cannot destroy '${held.id}': dataset is busy`);
      deleteSnapshots(
        store.db,
        gone.map((s) => s.id),
      );
      return gone;
    });
    for (const s of doomed) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
    return true as const;
  });
}

/** `zfs rollback [-r] DATASET@NAME` (MW/plugins/zfs_/snapshot_actions.py:74-80), its refusals as ZFS words them. */
async function rollbackOne(appliance: Appliance, id: string, options: PoolSnapshotRollbackOptions): Promise<void> {
  const { store } = appliance;
  const { failed } = snapshotRollbackRefusal;
  const snapshots = store.read(() => listSnapshots(store.db));
  const target = snapshots.find((s) => s.id === id);
  if (!target) throw failed(`cannot open '${id}': dataset does not exist`);
  const later = snapshots.filter((s) => s.dataset === target.dataset && s.txg > target.txg);
  if (later.length > 0 && !options.recursive && !options.recursive_clones) {
    throw snapshotRollbackRefusal.laterSnapshots(
      id,
      later.map((s) => s.id),
    );
  }
  await restoreSnapshot(appliance, target, later);
}

/** The dataset's files and owners as `target` holds them, and `later` (its dataset's snapshots after it) destroyed. */
async function restoreSnapshot(appliance: Appliance, target: SnapshotRecord, later: SnapshotRecord[]): Promise<void> {
  const { store } = appliance;
  const all = appliance.datasets();
  const d = all.find((x) => x.id === target.dataset);
  const mount = d ? mountOf(appliance, d, all) : null;
  if (mount) await restoreTree(snapshotCopyDir(appliance, target.copy), mount.host, store.mntDir, mount.skip);
  store.write(() => {
    if (mount && d) restoreOwners(store.db, d.pool, mount.rel, mount.childRels, target.owners);
    deleteSnapshots(
      store.db,
      later.map((s) => s.id),
    );
  });
  for (const s of later) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
}

/** Datasets in the order ZFS lists them: parents before children (`ordered`'s order for snapshots). */
const byPath = (a: string, b: string): number => {
  const [ka, kb] = [a.split('/'), b.split('/')];
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return ka.length - kb.length;
};

/**
 * 26.0's rollback (MW/plugins/pool_/snapshot.py:57-66 at TS-26.0.0-BETA.3, the same on stable/26)
 * calls the private zfs.resource.snapshot.rollback_impl (MW/plugins/zfs/snapshot_crud.py:752-770)
 * and so raises MW/plugins/zfs/snapshot_rollback_impl.py's exceptions as they are, not the public
 * rollback's ValidationErrors (snapshot_crud.py:809-825): a path without `@`
 * (ZFSPathNotASnapshotException, :87-88), a snapshot that does not exist (ZFSPathNotFoundException,
 * :93-98), with `recursive_rollback` a child that lacks it, found after the datasets before it
 * are rolled back (:119-125); later snapshots without `recursive`/`recursive_clones` are
 * lzc_rollback_to's EEXIST made a ValueError that lists them (:131-141, :146-168). With
 * `recursive` the later ones are destroyed newest first (:171-205); a held one fails lzc_destroy_snaps
 * with EBUSY, a ZFSCoreException its `except ZFSException` does not catch, after the newer ones went.
 */
async function rollback26(appliance: Appliance, id: string, options: PoolSnapshotRollbackOptions): Promise<void> {
  const { store } = appliance;
  // rollback_impl's protected paths first (MW/plugins/zfs/snapshot_crud.py:757-761 at TS-26.0.0-BETA.3).
  refuseInternalPath26('rollback', id);
  if (!id.includes('@')) throw notASnapshot26(id);
  const at = id.lastIndexOf('@');
  const [dataset, name] = [id.slice(0, at), id.slice(at + 1)];
  if (!store.read(() => listSnapshots(store.db)).some((s) => s.id === id)) throw pathNotFound26(id);
  // _collect_child_datasets (:18-27): every dataset below, parents first.
  const datasets = options.recursive_rollback
    ? appliance
        .datasets()
        .map((d) => d.id)
        .filter((d) => isWithin(d, dataset))
        .sort(byPath)
    : [dataset];
  for (const ds of datasets) {
    const snapshots = store.read(() => listSnapshots(store.db));
    const snapPath = `${ds}@${name}`;
    const target = snapshots.find((s) => s.id === snapPath);
    if (!target) throw pathNotFound26(snapPath);
    let later = snapshots.filter((s) => s.dataset === ds && s.txg > target.txg).sort((a, b) => a.txg - b.txg);
    if (later.length > 0 && (options.recursive || options.recursive_clones)) {
      const holds = listHolds(store.db);
      const held = [...later].reverse().find((s) => (holds.get(s.id)?.size ?? 0) > 0);
      // Those newer than a held one are destroyed before it fails.
      const gone = held ? later.filter((s) => s.txg > held.txg) : later;
      await destroyLater(appliance, gone);
      if (held) throw zfsCoreException('lzc_destroy_snaps() failed', [[held.id, ERRNO.EBUSY]]);
      later = [];
    }
    if (later.length > 0) throw snapshotRollbackRefusal.laterSnapshots26(later.map((s) => s.id));
    await restoreSnapshot(appliance, target, []);
  }
}

/** Snapshots destroyed: their rows (holds with them) and their copies. */
async function destroyLater(appliance: Appliance, gone: SnapshotRecord[]): Promise<void> {
  const { store } = appliance;
  store.write(() =>
    deleteSnapshots(
      store.db,
      gone.map((s) => s.id),
    ),
  );
  for (const s of gone) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
}

async function rollback(appliance: Appliance, id: string, options: PoolSnapshotRollbackOptions): Promise<null> {
  const [dataset, name] = splitId(id);
  return serializedByPool(appliance, dataset.split('/')[0]!, async () => {
    if (appliance.release.snapshotActionsThroughZfsResource) {
      await rollback26(appliance, id, options);
      return null;
    }
    if (!options.recursive_rollback) {
      await rollbackOne(appliance, id, options);
      return null;
    }
    // Every dataset below that has a snapshot of this name (MW/plugins/zfs_/snapshot_actions.py:64-72).
    const existing = new Set(appliance.store.read(() => listSnapshots(appliance.store.db)).map((s) => s.id));
    for (const d of appliance.datasets().filter((x) => isWithin(x.id, dataset))) {
      const snap = `${d.id}@${name}`;
      if (existing.has(snap)) await rollbackOne(appliance, snap, options);
    }
    return null;
  });
}

/** `extra` as zfs.snapshot.query reads it (MW/plugins/zfs_/snapshot.py:59-60, 108-113 at TS-25.10.1). */
interface SnapshotExtra {
  holds?: unknown;
  properties?: unknown;
  min_txg?: unknown;
  max_txg?: unknown;
}

/**
 * A txg bound as zfs_iter_snapshots takes it: 0 for none. Only a non-negative integer is read
 * (py-libzfs takes a C int; what Cython makes of other values is not followed).
 */
const txgBound = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);

/**
 * The snapshots zfs_iter_snapshots lists with `min_txg`/`max_txg`: createtxg from the one to the
 * other, both kept (the ioctl skips a snapshot below min_txg or above max_txg; 0 bounds nothing).
 */
function inTxgRange(extra: SnapshotExtra): (s: SnapshotRecord) => boolean {
  const [min, max] = [txgBound(extra.min_txg), txgBound(extra.max_txg)];
  return (s) => !(min && s.txg < min) && !(max && s.txg > max);
}

/**
 * The entries snapshots_serialized answers: `extra.properties` keeps properties (keptProperties),
 * `holds` shows each tag and when it was placed (seconds), `userrefs` counts them.
 */
function snapshotEntries(appliance: Appliance, extra: SnapshotExtra, simple = false): PoolSnapshotEntry[] {
  const inRange = inTxgRange(extra);
  const all = ordered(appliance.store.read(() => listSnapshots(appliance.store.db))).filter(inRange);
  const withHolds = extra.holds === true;
  // The fast name listing asks for `['name']` only (MW/plugins/zfs_/snapshot.py:96).
  const kept = simple ? (name: string) => name === 'name' : keptProperties(extra.properties);
  const holds = holdsOf(appliance);
  return all.map((s) => {
    const tags = holds.get(s.id);
    const entry = entryOf(s, kept, tags?.size ?? 0);
    if (!withHolds) return entry;
    return {
      ...entry,
      holds: tags ? Object.fromEntries([...tags].map(([tag, at]) => [tag, Math.floor(at / 1000)])) : {},
    };
  });
}

/**
 * 25.10.x's fast listing of names and counts (MW/plugins/zfs_/snapshot.py:67-102 at TS-25.10.1):
 * `select: ['name']` or `count`, with filters on name/pool/dataset only. It returns before the
 * retention check and reads neither `holds` nor `properties`; a count with no filters at all is the
 * datasets' snapshot counts summed (:72-78), with no txg bounds. 26.0 has no such listing (stable/26
 * MW/plugins/pool_/snapshot.py:243-290).
 */
function isFastListing(filters: QueryFilters, options: QueryOptions): boolean {
  const select = options.select ?? [];
  return (
    ((select.length === 1 && select[0] === 'name') || options.count === true) &&
    [...filterAttrs(filters)].every((a) => a === 'name' || a === 'pool' || a === 'dataset')
  );
}

/**
 * Whether `extra.retention` applies, refusing it on 25.10.x without an `id` filter or a `limit`
 * (MW/plugins/zfs_/snapshot.py:104-106 at TS-25.10.1).
 */
function wantsRetention(appliance: Appliance, filters: QueryFilters, options: QueryOptions): boolean {
  const extra = options.extra;
  if (!extra?.retention) return false;
  if (!appliance.release.retentionNeedsIdOrLimit) return true;
  if (!filterAttrs(filters).has('id') && !options.limit)
    throw rpcErrors.call(ERRNO.EINVAL, '`id` or `limit` is required if `retention` is requested');
  return true;
}

/** `{k: v for k, v in item.items() if k in select}`: a name in `select` that is not a key (dotted, or an alias's pair) keeps nothing. */
const selectKeys = (entry: object, select: readonly unknown[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(entry).filter(([k]) => select.includes(k)));

export const poolSnapshotMethods = [
  implement(poolSnapshotContract['pool.snapshot.query'], ({ appliance }, filters, options) => {
    // The arguments are validated (QueryArgs) before the plugin looks at `extra`.
    const parsed = parseQueryArgs(filters, options);
    const extra = (parsed.options.extra ?? {}) as SnapshotExtra;
    const fast = isFastListing(parsed.filters, parsed.options);
    if (fast && parsed.filters.length === 0 && parsed.options.count === true)
      return appliance.store.read(() => listSnapshots(appliance.store.db)).length;
    const retention = !fast && wantsRetention(appliance, parsed.filters, parsed.options);
    const entries = fast
      ? snapshotEntries(appliance, { min_txg: extra.min_txg, max_txg: extra.max_txg }, true)
      : snapshotEntries(appliance, extra);
    // The plugin's own `select`, after filter_list and the annotation (MW/plugins/zfs_/snapshot.py:
    // 119-134 at TS-25.10.1; stable/26 MW/plugins/pool_/snapshot.py:273-288): the entry's top-level
    // keys it names, so a dotted name or an alias keeps nothing. (25.10.1's fast listing, :67-102,
    // applies filter_list's select, to `select: ['name']` only, which keeps the same.)
    const { select, ...rest } = parsed.options;
    const found = applyQuery(entries, parsed.filters, rest);
    if (typeof found === 'number') return found;
    const list = (Array.isArray(found) ? found : [found]) as PoolSnapshotEntry[];
    const byId = retention ? snapshotRetention(appliance, list) : undefined;
    const answer = list.map((e) => {
      const entry = byId ? { ...e, retention: byId.get(e.id) ?? null } : e;
      return select && select.length > 0 ? selectKeys(entry, select) : entry;
    });
    return Array.isArray(found) ? answer : answer[0]!;
  }),
  // CRUDService.get_instance: the query by `id` with the same options, `extra` included.
  implement(poolSnapshotContract['pool.snapshot.get_instance'], ({ appliance }, id, options) => {
    const found = snapshotEntries(appliance, (options.extra ?? {}) as SnapshotExtra).find((e) => e.id === id);
    if (!found) throw rpcErrors.instanceNotFound('PoolSnapshot', id);
    return found;
  }),
  implement(poolSnapshotContract['pool.snapshot.create'], ({ appliance }, data) => create(appliance, data)),
  implement(poolSnapshotContract['pool.snapshot.delete'], ({ appliance }, id, options) =>
    destroy(appliance, id, options.recursive),
  ),
  implement(poolSnapshotContract['pool.snapshot.clone'], ({ appliance }, data) => cloneSnapshot(appliance, data)),
  // 26.0 holds and releases through zfs.resource.snapshot (snapshots/holds.ts holdSnapshot26).
  implement(poolSnapshotContract['pool.snapshot.hold'], ({ appliance }, id, options) =>
    (appliance.release.snapshotActionsThroughZfsResource ? holdSnapshot26 : holdSnapshot)(
      appliance,
      id,
      options.recursive,
    ),
  ),
  implement(poolSnapshotContract['pool.snapshot.release'], ({ appliance }, id, options) =>
    (appliance.release.snapshotActionsThroughZfsResource ? releaseSnapshot26 : releaseSnapshot)(
      appliance,
      id,
      options.recursive,
    ),
  ),
  implement(poolSnapshotContract['pool.snapshot.rollback'], ({ appliance }, id, options) =>
    rollback(appliance, id, options),
  ),
];

/*
 * 26.0's pool.snapshot.query (MW/plugins/pool_/snapshot.py:94-290 at TS-26.0.0-BETA.3, the same on
 * stable/26): zfs.resource.snapshot.query_impl (MW/plugins/zfs/snapshot_query_impl.py) lists the
 * snapshots with truenas_pylibzfs and `_transform_snapshot_entry` (:94-155) reshapes each. Where it
 * differs from 25.10.1's zfs.snapshot.query:
 * - `properties` holds only what `extra.properties` (a list of names) asks for (:215-223; snapshots
 *   have no default properties, MW/plugins/zfs/property_management.py:226-228); a name that is no
 *   snapshot property is dropped (:186-194 there), user properties among them.
 * - A property's `source` is NONE (get_source is never asked, :192 of the query_impl, :106-109 here),
 *   `rawvalue` is ZFS's parsable text and `value` is `str()` of the parsed one (:110-115): `0`, not `0B`.
 * - `name` and `createtxg` asked for come from the listing itself, after the others (:120-135).
 * - Every entry has `holds` (:146-150): `{"truenas": 1}` when asked (`extra.holds`) and held with
 *   that tag, else `{}`; no other tag, no time.
 * - `id`/`name`/`pool`/`dataset` filters with `=` or `in` are not filters but paths to list
 *   (:157-183, :225-236): a path that does not exist answers [] (:256-270), a dataset's path lists
 *   its snapshots (its children's too when a `pool` filter is among them), and several such filters
 *   add up rather than narrow.
 * - `extra.min_txg`/`max_txg` drop snapshots outside them (query_impl :67-75).
 * - `extra.retention` reads the removal date from the snapshot's user properties, not from
 *   `properties` (:243-254; MW/plugins/zettarepl_/snapshot_removal_date.py:150-153), with no
 *   `id`-or-`limit` check.
 */

/**
 * The snapshot properties the emulator keeps, among those `names` asks for, in ZFS's property
 * table order (zfs_prop_t) as truenas_pylibzfs lists them: those valid for a filesystem and for a
 * snapshot (py_zfs_prop_sets.c ZFS_FILESYSTEM_SNAPSHOT_PROPERTIES), so not `userrefs`, `clones`
 * or `defer_destroy`, which ZFS gives snapshots only. py_parse_zfs_prop (py_zfs_prop.c at
 * truenas_pylibzfs TS-26.0.0-BETA.2) reads ZFS's parsable text: a number as an int, or a float when
 * it has a point (`1.00` → 1.0, whose `str()` is `1.0` and whose JSON is `1.0`, py-numbers.ts);
 * `guid` a 64-bit int, written exactly. `objsetid` is the emulator's own unique number for the
 * snapshot (its row's), and a `written` that is not 0 is what the snapshot references
 * (`written` is given by SnapshotsWritten): the emulator keeps no object sets or block accounting.
 * Not kept: the properties a snapshot inherits (acltype, casesensitivity, …).
 */
function properties26(
  s: SnapshotRecord,
  names: ReadonlySet<string>,
  written?: ReadonlyMap<string, number>,
): Record<string, SnapshotProperty> {
  const out: Record<string, SnapshotProperty> = {};
  const put = (name: string, raw: string, parsed: unknown) => {
    if (names.has(name)) out[name] = { value: String(parsed), rawvalue: raw, source: 'NONE', parsed };
  };
  // A float (`1.00`) or an int past 2^53: the text Python writes beside the nearest number.
  const putNumber = (name: string, raw: string, value: number, shown: string, json: string) => {
    if (!names.has(name)) return;
    const property = { value: shown, rawvalue: raw, source: 'NONE' } as SnapshotProperty;
    setPyNumber(property, 'parsed', value, json);
    out[name] = property;
  };
  const seconds = Math.floor(s.created_at / 1000);
  put('type', 'snapshot', 'snapshot');
  put('creation', String(seconds), seconds);
  put('used', '0', 0);
  put('referenced', String(s.referenced), s.referenced);
  putNumber('compressratio', '1.00', 1, '1.0', pyFloatText(1));
  put('createtxg', String(s.txg), s.txg);
  putNumber('guid', s.guid, Number(s.guid), s.guid, s.guid);
  put('objsetid', String(s.txg), s.txg);
  putNumber('refcompressratio', '1.00', 1, '1.0', pyFloatText(1));
  const w = written?.get(s.id);
  if (w !== undefined) put('written', String(w), w);
  put('logicalreferenced', String(s.referenced), s.referenced);
  return out;
}

/** `written` of each snapshot `records` holds: 0 when nothing changed since the one before it (snapshots/written.ts), else what it references. */
async function writtenOf(appliance: Appliance, records: readonly SnapshotRecord[]): Promise<Map<string, number>> {
  const all = ordered(appliance.store.read(() => listSnapshots(appliance.store.db)));
  const out = new Map<string, number>();
  for (const s of records) out.set(s.id, (await isEmptySnapshot(appliance, s, all)) ? 0 : s.referenced);
  return out;
}

/** `_transform_snapshot_entry` (:94-155): `asked` the names `extra.properties` gave, null for none. */
function entryOf26(
  s: SnapshotRecord,
  asked: ReadonlySet<string> | null,
  holds: Record<string, unknown> | null,
  backend = new Set([...(asked ?? [])].filter((n) => n !== 'name' && n !== 'createtxg')),
  written?: ReadonlyMap<string, number>,
): PoolSnapshotEntry {
  const [dataset, name] = splitId(s.id);
  // `name` and `createtxg` never reach the backend (:218-223), so they come after the others.
  const properties = properties26(s, backend, written);
  if (asked?.has('name')) properties.name = native(s.id);
  if (asked?.has('createtxg')) properties.createtxg = native(String(s.txg), s.txg);
  // PoolSnapshotEntry's order (MW/api/v26_0_0/pool_snapshot.py:88-105 at TS-26.0.0-BETA.3), as the
  // result model dumps it (MW/api/base/handler/result.py:24-29), not `_transform_snapshot_entry`'s.
  const entry: PoolSnapshotEntry = {
    id: s.id,
    properties,
    pool: s.pool,
    name: s.id,
    type: 'SNAPSHOT',
    snapshot_name: name,
    dataset,
    createtxg: String(s.txg),
  };
  if (holds) entry.holds = holds;
  return entry;
}

/** The name of a JSON value's type in Python, for its TypeError texts. */
const pyTypeName = (v: unknown): string =>
  v === null
    ? 'NoneType'
    : typeof v === 'boolean'
      ? 'bool'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'int'
          : 'float'
        : 'dict';

/** `_optimize_snap_query_filters` (:157-183): the paths to list, whether recursively, and the filters left. */
function pathsOf(filters: QueryFilters): { paths: string[]; recursive: boolean; rest: QueryFilters } {
  const paths: unknown[] = [];
  const rest: unknown[] = [];
  let recursive = false;
  for (const f of filters as unknown[]) {
    const triple = Array.isArray(f) && f.length === 3 ? (f as [unknown, unknown, unknown]) : null;
    const attr = triple?.[0];
    if (
      !triple ||
      (triple[1] !== '=' && triple[1] !== 'in') ||
      !['id', 'name', 'pool', 'dataset'].includes(attr as string)
    ) {
      rest.push(f);
      continue;
    }
    // `paths.extend(f[2])` takes a string's characters and a dict's keys, as Python's list.extend does.
    const value = triple[2];
    if (triple[1] === '=') paths.push(value as string);
    else if (typeof value === 'string') paths.push(...value);
    else if (Array.isArray(value)) paths.push(...(value as unknown[]));
    else if (typeof value === 'object' && value !== null) paths.push(...Object.keys(value));
    else throw rpcErrors.exception('TypeError', `'${pyTypeName(value)}' object is not iterable`);
    if (attr === 'pool') recursive = true;
  }
  // ZFSResourceSnapshotQuery's `paths: UniqueList[str]` (MW/api/v26_0_0/zfs_resource_snapshot.py:176-181),
  // built inside the plugin (MW/plugins/pool_/snapshot.py:260): pydantic's ValidationError as
  // `str()` writes it, with its type and input, not validate_model's bare `msg` (MW/api/base/handler/accept.py:117).
  // pydantic also adds a line linking its page for the error, `https://errors.pydantic.dev/<its
  // version>/v/string_type`; the mirror does not say which pydantic 26.0 ships, so it is left out.
  const bad = paths.findIndex((p) => typeof p !== 'string');
  if (bad >= 0) {
    const value = paths[bad];
    throw rpcErrors.exception(
      'ValidationError',
      `1 validation error for ZFSResourceSnapshotQuery\npaths.${bad}\n` +
        `  Input should be a valid string [type=string_type, input_value=${pydanticInputValue(pyRepr(value))}, ` +
        `input_type=${Array.isArray(value) ? 'list' : pyTypeName(value)}]`,
    );
  }
  // UniqueList's AfterValidator (MW/api/base/types/list.py:12-19 at TS-26.0.0-BETA.3): a path given
  // twice (`['id', 'in', [x, x]]`, or `id` and `name` both naming it) is PydanticCustomError
  // `unique_list`; pydantic writes it with its type and input and, a custom error having no page,
  // no link.
  if (new Set(paths).size !== paths.length)
    throw rpcErrors.exception(
      'ValidationError',
      '1 validation error for ZFSResourceSnapshotQuery\npaths\n' +
        `  List must be unique [type=unique_list, input_value=${pydanticInputValue(pyRepr(paths))}, input_type=list]`,
    );
  return { paths: paths as string[], recursive, rest: rest as QueryFilters };
}

/**
 * pydantic-core's `input_value=` in an error's text: the repr, past 50 bytes of UTF-8 cut to its
 * first 25 and last 24 bytes, each shortened to whole characters (`é` is two bytes, `😀` four).
 */
function pydanticInputValue(repr: string): string {
  const bytes = (chars: string[]) => Buffer.byteLength(chars.join(''));
  const chars = [...repr];
  if (bytes(chars) <= 50) return repr;
  let head = 0;
  while (bytes(chars.slice(0, head + 1)) <= 25) head++;
  let tail = 0;
  while (bytes(chars.slice(chars.length - tail - 1)) <= 24) tail++;
  return `${chars.slice(0, head).join('')}...${chars.slice(chars.length - tail).join('')}`;
}

/**
 * The snapshots zfs.resource.snapshot.query_impl lists: every one without paths; else, per path in
 * order, the snapshot itself or the dataset's own (and its children's with `recursive`). A path
 * that does not exist ends the listing, answered as none at all (ZFSPathNotFoundException, :267-269).
 */
function listed26(
  all: SnapshotRecord[],
  datasets: ReadonlySet<string>,
  paths: string[],
  recursive: boolean,
): SnapshotRecord[] {
  if (paths.length === 0) return all;
  const found: SnapshotRecord[] = [];
  for (const path of paths) {
    if (path.includes('@')) {
      const snap = all.find((s) => s.id === path);
      if (!snap || !datasets.has(path.split('@')[0]!)) return [];
      found.push(snap);
    } else {
      if (!datasets.has(path)) return [];
      found.push(...all.filter((s) => s.dataset === path || (recursive && isWithin(s.dataset, path))));
    }
  }
  return found;
}

/** `extra.properties` as `set(extra.get('properties', []))` reads it: a list's items, a dict's keys. */
function askedProperties(extra: Record<string, unknown>): Set<string> | null {
  const value = extra.properties;
  if (value === undefined || value === null) return null;
  const names = Array.isArray(value) ? value : typeof value === 'object' ? Object.keys(value) : [...String(value)];
  return names.length > 0 ? new Set(names.map(String)) : null;
}

async function query26(
  appliance: Appliance,
  filters: unknown,
  options: unknown,
): Promise<number | Record<string, unknown> | Record<string, unknown>[]> {
  const parsed = parseQueryArgs(filters, options);
  const extra = parsed.options.extra ?? {};
  const { paths, recursive, rest } = pathsOf(parsed.filters);
  const minTxg = Number(extra.min_txg ?? 0) || 0;
  const maxTxg = Number(extra.max_txg ?? 0) || 0;
  const all = ordered(appliance.store.read(() => listSnapshots(appliance.store.db)));
  const datasets = new Set(appliance.datasets().map((d) => d.id));
  const asked = askedProperties(extra);
  const withHolds = extra.holds === true;
  const heldTags = withHolds ? holdsOf(appliance) : undefined;
  const records = listed26(all, datasets, paths, recursive).filter(
    (s) => !(minTxg && s.txg < minTxg) && !(maxTxg && s.txg > maxTxg),
  );
  const byId = new Map(records.map((s) => [s.id, s]));
  const written = asked?.has('written') ? await writtenOf(appliance, records) : undefined;
  const entries = records.map((s) =>
    entryOf26(s, asked, heldTags?.get(s.id)?.has('truenas') ? { truenas: 1 } : {}, undefined, written),
  );
  const { select, ...others } = parsed.options;
  const found = applyQuery(entries, rest, others);
  if (typeof found === 'number') return found;
  const list = (Array.isArray(found) ? found : [found]) as PoolSnapshotEntry[];
  // The annotation reads the removal date from `user_properties` (snapshot_removal_date.py:150-153).
  const retention = extra.retention
    ? snapshotRetention(
        appliance,
        list.map((e) => ({ ...e, properties: userProperties(byId.get(e.id)!) })),
      )
    : undefined;
  const answer = list.map((e) => {
    const entry = retention ? { ...e, retention: retention.get(e.id) ?? null } : e;
    return select && select.length > 0 ? selectKeys(entry, select) : entry;
  });
  return withPyNumbers(Array.isArray(found) ? answer : answer[0]!);
}

/** A snapshot's user properties as the annotation reads them: by name, the value as stored. */
const userProperties = (s: SnapshotRecord): Record<string, SnapshotProperty> =>
  Object.fromEntries(Object.entries(s.user_properties).map(([k, v]) => [k, native(v)]));

const c26 = poolSnapshotContract26;

/** 26.0's query and get_instance (CRUDService.get_instance: the query's first by `id`, MW/service/crud_service.py:239-255). */
export const poolSnapshotMethods26 = [
  implement(c26['pool.snapshot.query'], ({ appliance }, filters, options) => query26(appliance, filters, options)),
  implement(c26['pool.snapshot.get_instance'], async ({ appliance }, id, options) => {
    const found = await query26(appliance, [['id', '=', id]], options);
    const first = Array.isArray(found) ? (found[0] as PoolSnapshotEntry | undefined) : found;
    if (!first) throw rpcErrors.instanceNotFound('PoolSnapshot', id);
    return withPyNumbers(first as PoolSnapshotEntry);
  }),
  // The entry create_impl queries with `creation` and `createtxg` (MW/plugins/zfs/snapshot_create_impl.py:122-133),
  // reshaped without holds (MW/plugins/pool_/snapshot.py:359-360).
  implement(c26['pool.snapshot.create'], async ({ appliance }, data) =>
    entryOf26(await createRecord(appliance, data), null, null, new Set(['creation', 'createtxg'])),
  ),
];
