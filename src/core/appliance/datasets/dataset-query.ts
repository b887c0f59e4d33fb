import type { PoolDatasetEntry } from '../../contract/pool-dataset.js';
import type { SnapshotRecord } from '../../store/snapshots.js';
import { parseQueryArgs, matchesFilters, type QueryAnswer, type QueryFilters } from '../query/index.js';
import { doGet, doOrder, doSelect } from '../query/options.js';
import { firstKey } from '../query/paths.js';
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

/** What an entry holds that is known from the dataset's row alone: no bytes measured, nothing inherited. */
export interface DatasetKey {
  id: string;
  name: string;
  pool: string;
  type: 'FILESYSTEM' | 'VOLUME';
}
const KEY_FIELDS = new Set(['id', 'name', 'pool', 'type']);

/**
 * `generic_query` (:1020-1115). `keys` are every dataset, parents before children; `load` gives
 * the whole entries of the datasets named (all of them for `undefined`), with their children's.
 * Unlike the generic `filter_list`: `count` counts every dataset whatever the filters (:955-956,
 * :1082-1083); filters always give a flat list; the default is flat; order, then select, then get,
 * then offset and limit.
 *
 * Filters and order_by that name only the fields of a DatasetKey are decided on the keys, and only
 * the rows the answer keeps are built: a page of `stor dataset list` costs its rows (and a root's
 * descendants), not every dataset's measured entry. There a `select` also narrows what is built:
 * `load` builds only the fields it reads (no bytes measured unless a space field is among them) and
 * no `children` are nested unless it reads them; what it picks is the same.
 */
export async function datasetQuery(
  keys: readonly DatasetKey[],
  load: (ids: readonly string[] | undefined, fields?: ReadonlySet<string>) => Promise<(id: string) => PoolDatasetEntry>,
  snapshotsOf: (id: string) => SnapshotRecord[],
  rawFilters: unknown,
  rawOptions: unknown,
): Promise<QueryAnswer<PoolDatasetEntry>> {
  const { filters, options } = parseQueryArgs(rawFilters, rawOptions);
  const extra = options.extra ?? {};
  const flat = truthy(extra.flat ?? true);
  const retrieveChildren = truthy(extra.retrieve_children ?? true);
  const shape = shapeOf(extra);
  const orderBy = options.order_by ?? [];

  // Without children and filters only the pools' root datasets are walked (:994-997).
  const walked = retrieveChildren || filters.length > 0 ? keys : keys.filter((k) => parentOf(k.id) === null);
  if (options.count === true) return walked.length;

  const children = new Map<string, DatasetKey[]>();
  const roots: DatasetKey[] = [];
  if (retrieveChildren) {
    const seen = new Set<string>();
    for (const k of walked) {
      seen.add(k.id);
      const parent = parentOf(k.id);
      if (parent !== null && seen.has(parent)) {
        const list = children.get(parent);
        if (list) list.push(k);
        else children.set(parent, [k]);
      } else roots.push(k);
    }
  }
  let listed: readonly DatasetKey[];
  if (!retrieveChildren) listed = walked;
  else if (filters.length > 0 || flat) listed = flattenKeys(roots, children);
  else listed = roots;

  let entryOf: (id: string) => PoolDatasetEntry = () => {
    throw new Error('entries not loaded');
  };
  const select = options.select ?? [];
  // The entry fields a select reads (by the first name of each path); undefined: all of them.
  const fields =
    select.length === 0 ? undefined : new Set(select.map((s) => firstKey(typeof s === 'string' ? s : s[0])));
  let nest = retrieveChildren;
  const built = new Map<string, PoolDatasetEntry & Record<string, unknown>>();
  const shapedOf = (id: string): PoolDatasetEntry => {
    let entry = built.get(id);
    if (!entry) {
      entry = shaped(entryOf(id), shape, snapshotsOf);
      built.set(id, entry);
      if (nest) entry.children = (children.get(id) ?? []).map((c) => shapedOf(c.id));
    }
    return entry;
  };
  const selected = (rows: PoolDatasetEntry[]) =>
    select.length > 0 ? rows.map((e) => doSelect(e, select) as PoolDatasetEntry) : rows;

  if (namesOnly(filters, orderBy)) {
    let rows = filters.length > 0 ? listed.filter((k) => matchesFilters(k, filters)) : [...listed];
    rows = doOrder(rows, orderBy);
    if (options.get === true) rows = [doGet(rows)];
    if (options.offset) rows = rows.slice(options.offset);
    if (options.limit) rows = rows.slice(0, options.limit);
    // Filters and order are decided: only the select reads the entries now.
    const narrow = fields !== undefined && !fields.has('children');
    if (narrow) nest = false;
    entryOf = await load(
      rows.map((k) => k.id),
      narrow ? fields : undefined,
    );
    const answer = selected(rows.map((k) => shapedOf(k.id)));
    return options.get === true ? answer[0]! : answer;
  }

  entryOf = await load(undefined);
  let rv = listed.map((k) => shapedOf(k.id));
  if (filters.length > 0) rv = rv.filter((e) => matchesFilters(e, filters));
  rv = selected(doOrder(rv, orderBy));
  if (options.get === true) return doGet(rv);
  if (options.offset) rv = rv.slice(options.offset);
  if (options.limit) rv = rv.slice(0, options.limit);
  return rv;
}

/** True when every filter's field and every order_by field is a DatasetKey's own (no path, no wildcard). */
function namesOnly(filters: QueryFilters, orderBy: readonly string[]): boolean {
  const fieldsOnly = (list: readonly unknown[]): boolean =>
    list.every((f) => {
      if (!Array.isArray(f)) return false;
      // An OR's branches, each one filter or a list of them (as evalFilter reads them).
      if (f.length === 2)
        return (
          Array.isArray(f[1]) &&
          (f[1] as unknown[]).every(
            (b) => Array.isArray(b) && (Array.isArray(b[0]) ? fieldsOnly(b as unknown[]) : fieldsOnly([b])),
          )
        );
      return f.length === 3 && typeof f[0] === 'string' && KEY_FIELDS.has(f[0]);
    });
  const field = (o: string) => o.replace(/^nulls_(first|last):/, '').replace(/^-/, '');
  return fieldsOnly(filters) && orderBy.every((o) => KEY_FIELDS.has(field(o)));
}

function flattenKeys(roots: readonly DatasetKey[], children: ReadonlyMap<string, DatasetKey[]>): DatasetKey[] {
  const out: DatasetKey[] = [];
  const visit = (list: readonly DatasetKey[]) => {
    for (const k of list) {
      out.push(k);
      visit(children.get(k.id) ?? []);
    }
  };
  visit(roots);
  return out;
}
