import type { PoolDatasetEntry } from '../../contract/pool-dataset.js';
import type { SnapshotRecord } from '../../store/snapshots.js';
import { parseQueryArgs, matchesFilters, type QueryAnswer } from '../query/index.js';
import { doGet, doOrder, doSelect } from '../query/options.js';
import { PROPERTIES, parentOf } from './properties.js';

/*
 * `pool.dataset.query` as 25.10.1's `generic_query` runs it (MW/plugins/pool_/dataset_query_utils.py,
 * called from MW/plugins/pool_/dataset.py:161-166 with `options.pop("extra", {})`): the entries are
 * built whole (EntryBuilder in methods/pool-dataset.ts) and shaped here by `extra`.
 */

/** Truthiness as Python's `if x:` sees a JSON value (extra is an untyped dict). */
const truthy = (v: unknown): boolean =>
  !(
    v === undefined ||
    v === null ||
    v === false ||
    v === 0 ||
    v === '' ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
  );

/** ZFS property names `extra.properties` takes, renamed as the entry shows them (`zfs_property_names_to_be_renamed`, :206-223). */
const RENAMED: Record<string, string> = {
  dedup: 'deduplication',
  encryption: 'encryption_algorithm',
  encryptionroot: 'encryption_root',
  keyformat: 'key_format',
  special_small_blocks: 'special_small_block_size',
};

/** `crypto_props` (:614-620): asking for any of them adds `encrypted`, `encryption_root`, `key_loaded`, `locked`. */
const CRYPTO = new Set(['encryption', 'encryptionroot', 'keyformat', 'keylocation', 'keystatus']);

/** Properties every dataset type has (`BASE_PROPS`, :155-180) beside the ones PROPERTIES scopes; `mountpoint` is a top-level string. */
const SPACE_AND_FIXED = [
  'available',
  'compressratio',
  'creation',
  'encryption',
  'encryptionroot',
  'keyformat',
  'origin',
  'pbkdf2iters',
  'used',
  'usedbychildren',
  'usedbydataset',
  'usedbyrefreservation',
  'usedbysnapshots',
];
const FS_ONLY = new Set([
  'mountpoint',
  'xattr',
  ...Object.entries(PROPERTIES)
    .filter(([, s]) => s.scope === 'FILESYSTEM')
    .map(([n]) => (n === 'special_small_block_size' ? 'special_small_blocks' : n)),
]);
const VOL_ONLY = new Set([
  'volblocksize',
  ...Object.entries(PROPERTIES)
    .filter(([, s]) => s.scope === 'VOLUME')
    .map(([n]) => n),
]);
const KNOWN = new Set([
  ...SPACE_AND_FIXED,
  ...FS_ONLY,
  ...VOL_ONLY,
  'dedup',
  ...Object.keys(PROPERTIES).filter((n) => n !== 'deduplication' && n !== 'special_small_block_size'),
]);
const TOP_LEVEL = new Set([
  'id',
  'type',
  'name',
  'pool',
  'encrypted',
  'encryption_root',
  'key_loaded',
  'locked',
  'mountpoint',
  'children',
  'user_properties',
]);

interface Shape {
  /** null: every property (`BASE_FS_PROPS` / `BASE_VOL_PROPS`); otherwise the entry fields wanted, per type. */
  fs: Set<string> | null;
  vol: Set<string> | null;
  crypto: boolean;
  userProps: boolean;
  snapshots: boolean;
  snapshotsCount: boolean;
  snapshotsProperties: unknown;
}

/**
 * `build_set_of_zfs_props` (:551-648): `[]` keeps no property (a filesystem's `mountpoint` only);
 * a list keeps the names libzfs knows for the dataset's type (upper-cased into `ZFSProperty`, so API
 * names such as `deduplication` are not among them); `null` keeps them all.
 */
function shapeOf(extra: Record<string, unknown>): Shape {
  const wanted = extra.properties;
  const snapshotsProperties = Object.hasOwn(extra, 'snapshots_properties') ? extra.snapshots_properties : [];
  const base = {
    userProps: truthy(extra.retrieve_user_props ?? true),
    snapshots: truthy(extra.snapshots),
    snapshotsCount: truthy(extra.snapshots_count),
    snapshotsProperties,
  };
  if (wanted === undefined || wanted === null) return { ...base, fs: null, vol: null, crypto: true };
  const names = Array.isArray(wanted)
    ? wanted.filter((n): n is string => typeof n === 'string').map((n) => n.toLowerCase())
    : [];
  const field = (n: string) => RENAMED[n] ?? n;
  const fs = new Set(names.filter((n) => KNOWN.has(n) && !VOL_ONLY.has(n)).map(field));
  const vol = new Set(names.filter((n) => KNOWN.has(n) && !FS_ONLY.has(n)).map(field));
  return { ...base, fs, vol, crypto: names.some((n) => CRYPTO.has(n)) };
}

/** One entry as `build_info` (:704-770) and `generic_query_callback` (:893-958) make it, without children yet. */
function shaped(
  full: PoolDatasetEntry,
  shape: Shape,
  snapshotsOf: (id: string) => SnapshotRecord[],
): PoolDatasetEntry & Record<string, unknown> {
  const wanted = full.type === 'VOLUME' ? shape.vol : shape.fs;
  const out: Record<string, unknown> = { id: full.id, type: full.type, name: full.name, pool: full.pool };
  for (const [key, value] of Object.entries(full)) {
    if (TOP_LEVEL.has(key)) continue;
    if (wanted === null || wanted.has(key)) out[key] = value;
  }
  if (shape.userProps) out.user_properties = full.user_properties;
  if (shape.crypto) {
    out.encrypted = full.encrypted;
    out.encryption_root = full.encryption_root;
    out.key_loaded = full.key_loaded;
    out.locked = full.locked;
  }
  out.mountpoint = full.mountpoint;
  out.children = [];
  if (shape.snapshots || shape.snapshotsCount) {
    const snaps = snapshotsOf(full.id!);
    if (shape.snapshotsCount) out.snapshot_count = snaps.length;
    if (shape.snapshots) {
      // `snapshot_callback` (:789-866). The properties a non-empty `snapshots_properties` asks for
      // are not emulated (docs/RELEASES.md "Deviations left").
      out.snapshots = snaps.map((s) => ({
        pool: full.pool,
        name: s.id,
        type: 'SNAPSHOT',
        snapshot_name: s.id.slice(s.id.indexOf('@') + 1),
        dataset: s.dataset,
        id: s.id,
        createtxg: String(s.txg),
      }));
      // Put in the entry to reach the callback and never taken out again, so 25.10.1 answers it (:935-939).
      out._snapshots_properties = shape.snapshotsProperties;
    }
  }
  return out as PoolDatasetEntry & Record<string, unknown>;
}

/**
 * `generic_query` (:1020-1115). `entries` are every dataset's whole entry, parents before children.
 * Unlike the generic `filter_list`: `count` counts every dataset whatever the filters (:955-956,
 * :1082-1083); filters always give a flat list; the default is flat; order, then select, then get,
 * then offset and limit.
 */
export function datasetQuery(
  entries: readonly PoolDatasetEntry[],
  snapshotsOf: (id: string) => SnapshotRecord[],
  rawFilters: unknown,
  rawOptions: unknown,
): QueryAnswer<PoolDatasetEntry> {
  const { filters, options } = parseQueryArgs(rawFilters, rawOptions);
  const extra = options.extra ?? {};
  const flat = truthy(extra.flat ?? true);
  const retrieveChildren = truthy(extra.retrieve_children ?? true);
  const shape = shapeOf(extra);

  // Without children and filters only the pools' root datasets are walked (:994-997).
  const walked = retrieveChildren || filters.length > 0 ? entries : entries.filter((e) => parentOf(e.id!) === null);
  if (options.count === true) return walked.length;

  const byId = new Map<string, PoolDatasetEntry & Record<string, unknown>>();
  const roots: PoolDatasetEntry[] = [];
  const inOrder: PoolDatasetEntry[] = [];
  for (const e of walked) {
    const entry = shaped(e, shape, snapshotsOf);
    byId.set(e.id!, entry);
    if (!retrieveChildren) {
      inOrder.push(entry);
      continue;
    }
    const parent = parentOf(e.id!);
    const parentEntry = parent === null ? undefined : byId.get(parent);
    if (parentEntry) (parentEntry.children as unknown[]).push(entry);
    else roots.push(entry);
  }

  let rv: PoolDatasetEntry[];
  if (!retrieveChildren) rv = inOrder;
  else if (filters.length > 0 || flat) rv = flatten(roots);
  else rv = roots;
  if (filters.length > 0) rv = rv.filter((e) => matchesFilters(e, filters));
  rv = doOrder(rv, options.order_by ?? []);
  const select = options.select ?? [];
  if (select.length > 0) rv = rv.map((e) => doSelect(e, select) as PoolDatasetEntry);
  if (options.get === true) return doGet(rv);
  if (options.offset) rv = rv.slice(options.offset);
  if (options.limit) rv = rv.slice(0, options.limit);
  return rv;
}

/** `_flatten_hierarchy` (:1002-1017): every entry, each keeping its children. */
function flatten(roots: readonly PoolDatasetEntry[]): PoolDatasetEntry[] {
  const out: PoolDatasetEntry[] = [];
  const visit = (list: readonly PoolDatasetEntry[]) => {
    for (const e of list) {
      out.push(e);
      visit((e.children ?? []) as PoolDatasetEntry[]);
    }
  };
  visit(roots);
  return out;
}
