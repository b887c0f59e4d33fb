import { mkdirSync, lstatSync, statfsSync } from 'node:fs';
import {
  CHECKSUM_CHOICES,
  poolDatasetContract,
  RECORDSIZE_CHOICES,
  type PoolDatasetCreate,
  type PoolDatasetEntry,
  type PoolDatasetUpdate,
} from '../../contract/pool-dataset.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  copiesTaken,
  datasetCreateRefusal,
  datasetDeleteRefusal,
  datasetUpdateRefusal,
  pyRepr,
  zfsUpdateRefusal,
} from '../../refusals/pool-dataset.js';
import {
  deleteDatasets,
  insertDataset,
  listDatasetLineage,
  listDatasets,
  updateDataset,
  type DatasetRecord,
} from '../../store/datasets.js';
import { listPools } from '../../store/files.js';
import { deleteSnapshots, listSnapshots, type SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { deleteDatasetAttachments, sendAttachmentEvents } from '../datasets/attachments.js';
import { assertNotBeingDeleted, deletionCovering, markDeleting } from '../datasets/deletion.js';
import {
  PROPERTIES,
  TRUENAS_USER_PROPERTIES,
  TRUENAS_USER_PROPERTY_FIELDS,
  creationShown,
  datasetType,
  encryptionRootOf,
  formatSize,
  parentOf,
  recordsizeBytes,
  resolvedProperties,
  resolvedPropertiesOf,
  shownUserProperties,
} from '../datasets/properties.js';
import { sandboxPath } from '../files/places.js';
import { implement } from '../method.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { datasetQuery } from '../datasets/dataset-query.js';
import { snapshotsDir } from '../jobs/stray-snapshot-copies.js';
import { bytesBelow, removeTree } from '../files/tree-walk.js';

// The handlers of contract/pool-dataset.ts.

/*
 * What is emulated of 25.10.1's pool.dataset (MW/plugins/pool_/dataset.py) is what a client can
 * observe through the API: the entries with their properties, inheritance, the validation and its
 * messages, a mountpoint directory per filesystem. Not emulated: the ZFS features behind the
 * properties (no compression, quotas or reservations enforced, no case-insensitive lookups), ACLs
 * that share_type presets would write (SMB/APPS/NFS get the preset properties, not the ACL), real
 * encryption (no key is kept or exportable, a dataset is never locked), volumes' block devices (a
 * VOLUME is an entry only; the refreservation a thick volume gets is its volsize, ZFS adds metadata
 * overhead). Snapshots are pool-snapshot.ts.
 */

/**
 * Where a dataset's mountpoint is on this machine, through the same sandbox check as every other
 * path: a symlink planted in a parent must not send mkdir or a recursive delete out of the pool.
 */
function mountpointHost(appliance: Appliance, id: string): string {
  return sandboxPath(appliance, `/mnt/${id}`).host;
}

/** Datasets by parent id, built once: looking children up by scanning every dataset made listing quadratic. */
function childrenIndex(all: readonly DatasetRecord[]): Map<string, DatasetRecord[]> {
  const index = new Map<string, DatasetRecord[]>();
  for (const d of all) {
    const parent = parentOf(d.id);
    if (parent === null) continue;
    const siblings = index.get(parent);
    if (siblings) siblings.push(d);
    else index.set(parent, [d]);
  }
  return index;
}

/** Rounds of removal a delete makes before it gives up: a write already past its check may land meanwhile. */
const REMOVAL_ROUNDS = 3;

/**
 * Removes a dataset's tree. A put that passed its check just before the mark was set can still
 * land a file after a directory was emptied (ENOTEMPTY): the next round takes it, since no new put
 * gets past the mark. Still not empty after REMOVAL_ROUNDS: the dataset is busy.
 */
async function removeSettled(host: string, within: string, busy: () => Error): Promise<void> {
  for (let round = 1; ; round++) {
    try {
      return await removeTree(host, within);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
      if (round === REMOVAL_ROUNDS) throw busy();
    }
  }
}

/**
 * Each filesystem dataset's own bytes (its files, not its children's), measured before entries are
 * built: of every dataset, or only of `only` (what one entry needs, ownBytesNeededFor).
 */
async function measureOwnBytes(appliance: Appliance, only?: ReadonlySet<string>): Promise<Map<string, number>> {
  const own = new Map<string, number>();
  if (only?.size === 0) return own;
  const all = appliance.datasets();
  const children = childrenIndex(all);
  // Each mountpoint checked once: the sandbox check lstats the path, and a dataset's is asked both
  // for its own walk and for its parent's.
  const hosts = new Map<string, string | null>();
  const hostOf = (id: string) => {
    let host = hosts.get(id);
    if (host === undefined) {
      host = mountpointHostOrNull(appliance, id);
      hosts.set(id, host);
    }
    return host;
  };
  for (const d of all) {
    if (only && !only.has(d.id)) continue;
    const mount = datasetType(d) === 'FILESYSTEM' ? hostOf(d.id) : null;
    if (!mount) continue;
    const skip = new Set((children.get(d.id) ?? []).map((c) => hostOf(c.id)).filter((h): h is string => h !== null));
    own.set(d.id, await bytesBelow(mount, skip));
  }
  return own;
}

const hasQuota = (d: DatasetRecord) => typeof d.properties.quota === 'number' && d.properties.quota > 0;

/**
 * The datasets whose files `id`'s entry counts: its own tree (`used`), and the trees of its
 * ancestors that have a quota (`available`). Without quotas above it, a dataset's entry walks only
 * its own tree, so creating or updating one costs the same with ten datasets or ten thousand
 * (once the 800th create took ~110 ms, walking every file of every dataset).
 */
function ownBytesNeededFor(appliance: Appliance, id: string): Set<string> {
  // The lineage first, by key: a name with no dataset yet and no quota above it needs nothing,
  // and the whole table is not read for it.
  const { store } = appliance;
  const lineage = store.read(() => listDatasetLineage(store.db, id));
  const roots = lineage.filter((d) => d.id === id || hasQuota(d)).map((d) => d.id);
  const needed = new Set<string>();
  if (roots.length === 0) return needed;
  for (const d of appliance.datasets()) {
    if (roots.some((r) => d.id === r || d.id.startsWith(`${r}/`))) needed.add(d.id);
  }
  return needed;
}

/**
 * What entries of `rows` count, as ownBytesNeededFor for each: their trees (their children's
 * entries are in theirs) and the trees of their ancestors with a quota. A page of a query measures
 * these, not every dataset's files.
 */
function ownBytesNeededForRows(records: readonly DatasetRecord[], rows: readonly string[]): Set<string> {
  const needed = new Set<string>();
  if (rows.length === 0) return needed;
  const byId = new Map(records.map((d) => [d.id, d]));
  const roots = new Set<string>();
  for (const row of rows) {
    roots.add(row);
    for (let a = parentOf(row); a !== null; a = parentOf(a)) {
      const d = byId.get(a);
      if (d && hasQuota(d)) roots.add(a);
    }
  }
  for (const d of records) {
    for (let a: string | null = d.id; a !== null; a = parentOf(a)) {
      if (!roots.has(a)) continue;
      needed.add(d.id);
      break;
    }
  }
  return needed;
}

function mountpointHostOrNull(appliance: Appliance, id: string): string | null {
  try {
    return mountpointHost(appliance, id);
  } catch {
    return null;
  }
}

/** Each dataset's snapshots, oldest first, read once and only when `extra.snapshots`/`snapshots_count` asks. */
function snapshotsByDataset(appliance: Appliance): (id: string) => SnapshotRecord[] {
  let byDataset: Map<string, SnapshotRecord[]> | undefined;
  return (id) => {
    if (!byDataset) {
      byDataset = new Map();
      for (const s of appliance.store.read(() => listSnapshots(appliance.store.db))) {
        const list = byDataset.get(s.dataset);
        if (list) list.push(s);
        else byDataset.set(s.dataset, [s]);
      }
    }
    return byDataset.get(id) ?? [];
  };
}

/** A space-accounting property: bytes, shown human-readable in `value` as 25.10.1 does. */
const bytesProperty = (n: number) => ({
  parsed: n,
  rawvalue: String(n),
  value: formatSize(n),
  source: 'NONE',
  source_info: null,
});

/** The entry fields that cost the bytes measured (measureOwnBytes) or a `statfs`. */
const SPACE_FIELDS = [
  'used',
  'available',
  'usedbydataset',
  'usedbychildren',
  'usedbyrefreservation',
  'usedbysnapshots',
];

/**
 * Builds dataset entries from the datasets' own bytes, measured beforehand (measureOwnBytes). With
 * `fields` (a query's, what its `select` reads), an entry holds its id, type, name and pool and only
 * those of the other fields, and no `children`: the query nests its own (datasets/dataset-query.ts).
 */
class EntryBuilder {
  private readonly all: DatasetRecord[];
  private readonly byId: Map<string, DatasetRecord>;
  private readonly children: Map<string, DatasetRecord[]>;
  private readonly used = new Map<string, number>();
  /** Built entries: a parent's `children` holds the same objects, so all entries cost O(datasets), not O(datasets × depth). */
  private readonly built = new Map<string, PoolDatasetEntry>();
  /** Free bytes per pool, one `statfs` each: every dataset of a pool shares its free space. */
  private readonly free = new Map<string, number>();

  constructor(
    private readonly appliance: Appliance,
    private readonly own: ReadonlyMap<string, number>,
    /** The datasets entries are built from: all of them unless the caller knows fewer will do. */
    records: DatasetRecord[] = appliance.datasets(),
    private readonly fields?: ReadonlySet<string>,
  ) {
    this.all = records;
    this.byId = new Map(this.all.map((d) => [d.id, d]));
    this.children = childrenIndex(this.all);
  }

  /** For every entry, or (with `id`) for that one entry and its children only. */
  static async load(appliance: Appliance, id?: string): Promise<EntryBuilder> {
    const only = id === undefined ? undefined : ownBytesNeededFor(appliance, id);
    return new EntryBuilder(appliance, await measureOwnBytes(appliance, only));
  }

  private childrenOf(id: string): DatasetRecord[] {
    return this.children.get(id) ?? [];
  }

  /** `used`: the files of the dataset and of all its descendants (as ZFS counts it), and what thick volumes reserve. */
  private usedOf(d: DatasetRecord): number {
    let used = this.used.get(d.id);
    if (used === undefined) {
      const children = this.childrenOf(d.id);
      const reserved = typeof d.properties.refreservation === 'number' ? d.properties.refreservation : 0;
      // A dataset made since the measurement has no files yet.
      used = (this.own.get(d.id) ?? 0) + reserved + children.reduce((sum, c) => sum + this.usedOf(c), 0);
      this.used.set(d.id, used);
    }
    return used;
  }

  /** Free bytes of the pool, less what a quota of the dataset or of its ancestors leaves. */
  availableOf(d: DatasetRecord): number {
    let available = this.free.get(d.pool);
    if (available === undefined) {
      available = 0;
      try {
        const fs = statfsSync(mountpointHost(this.appliance, d.pool));
        available = fs.bavail * fs.bsize;
      } catch {
        // the pool directory vanished under us; report nothing free
      }
      this.free.set(d.pool, available);
    }
    for (let id: string | null = d.id; id; id = parentOf(id)) {
      const a = this.byId.get(id);
      const quota = a?.properties.quota;
      if (a && typeof quota === 'number' && quota > 0)
        available = Math.min(available, Math.max(0, quota - this.usedOf(a)));
    }
    return available;
  }

  entry(id: string): PoolDatasetEntry {
    const done = this.built.get(id);
    if (done) return done;
    const d = this.byId.get(id);
    if (!d) throw rpcErrors.instanceNotFound('PoolDataset', id);
    const entry = this.build(d, this.fields);
    this.built.set(id, entry);
    return entry;
  }

  /**
   * The whole entry of `d` or, with `fields`, the same values field for field less the fields not
   * in `fields` and less `children`, so that a `select` of them answers as the whole entry would.
   */
  private build(d: DatasetRecord, fields: ReadonlySet<string> | undefined): PoolDatasetEntry {
    const has = (f: string): boolean => fields === undefined || fields.has(f);
    const type = datasetType(d);
    const out: Record<string, unknown> = { id: d.id, type, name: d.id, pool: d.pool };
    if (['encrypted', 'encryption_root', 'key_loaded'].some(has)) {
      const root = encryptionRootOf(d, this.byId);
      if (has('encrypted')) out.encrypted = root !== null;
      if (has('encryption_root')) out.encryption_root = root?.id ?? null;
      if (has('key_loaded')) out.key_loaded = root !== null;
    }
    if (has('locked')) out.locked = false;
    if (has('mountpoint')) out.mountpoint = type === 'VOLUME' ? null : `/mnt/${d.id}`;
    if (fields === undefined) out.children = this.childrenOf(d.id).map((c) => this.entry(c.id));
    // No top-level comments, managedby or quota thresholds: they live here, present only when set.
    if (has('user_properties')) out.user_properties = shownUserProperties(d.user_properties);
    Object.assign(
      out,
      fields === undefined ? resolvedProperties(d, this.byId) : resolvedPropertiesOf(d, this.byId, fields),
    );
    if (SPACE_FIELDS.some(has)) {
      const used = this.usedOf(d);
      const byChildren = this.childrenOf(d.id).reduce((sum, c) => sum + this.usedOf(c), 0);
      const reserved = typeof d.properties.refreservation === 'number' ? d.properties.refreservation : 0;
      if (has('used')) out.used = bytesProperty(used);
      if (has('available')) out.available = bytesProperty(this.availableOf(d));
      if (has('usedbydataset')) out.usedbydataset = bytesProperty(used - byChildren - reserved);
      if (has('usedbychildren')) out.usedbychildren = bytesProperty(byChildren);
      if (has('usedbyrefreservation')) out.usedbyrefreservation = bytesProperty(reserved);
      if (has('usedbysnapshots')) out.usedbysnapshots = bytesProperty(0);
    }
    if (has('creation'))
      out.creation = {
        parsed: { $date: Math.floor(d.created_at / 1000) * 1000 },
        rawvalue: String(Math.floor(d.created_at / 1000)),
        value: creationShown(d.created_at),
        source: 'NONE',
        source_info: null,
      };
    return out as unknown as PoolDatasetEntry;
  }
}

/** Writes the ZFS-property fields of a create/update input; INHERIT removes the local value. */
function applyProperties(target: DatasetRecord['properties'], data: Record<string, unknown>): void {
  for (const name of Object.keys(PROPERTIES)) {
    const v = data[name];
    if (v === undefined) continue;
    if (v === 'INHERIT') delete target[name];
    // none_normalize: a size of 0 or null is ZFS's "none", which the entry shows as null.
    else if (v === null || (v === 0 && ['quota', 'refquota', 'reservation', 'refreservation'].includes(name)))
      target[name] = null;
    else target[name] = v as string | number;
  }
}

/**
 * The TrueNAS user-property fields of an input. On create INHERIT means "not set"; on update all
 * but comments treat INHERIT as a reset: comments is written as given (MW/plugins/pool_/dataset.py,
 * the `inheritable` column of do_create and do_update).
 */
function applyTrueNasFields(
  target: DatasetRecord['user_properties'],
  data: Record<string, unknown>,
  mode: 'CREATE' | 'UPDATE',
): void {
  for (const [field, key] of Object.entries(TRUENAS_USER_PROPERTIES)) {
    const v = data[field];
    if (v === undefined) continue;
    const inheritable = mode === 'CREATE' || field !== 'comments';
    if (inheritable && v === 'INHERIT') delete target[key];
    else target[key] = String(v);
  }
}

type Errors = ValidationTriple[];
const add = (errors: Errors, field: string, message: string, errno: number = ERRNO.EINVAL) =>
  errors.push([field, message, errno]);
const check = (errors: Errors) => {
  if (errors.length > 0) throw rpcErrors.validation(errors);
};

/** A property's effective value on `d` (local, inherited or default), upper case as `value` shows it. */
function effective(d: DatasetRecord, byId: ReadonlyMap<string, DatasetRecord>, name: string): unknown {
  return (resolvedProperties(d, byId)[name] as { value: unknown } | undefined)?.value;
}

/**
 * `__common_validation` (MW/plugins/pool_/dataset.py:173-356) for what the emulator has: the ACL
 * type/mode pair, fields of the other type, special_small_block_size, recordsize, volume sizes.
 */
function commonValidation(
  errors: Errors,
  schema: string,
  data: Record<string, unknown>,
  type: 'FILESYSTEM' | 'VOLUME',
  parent: DatasetRecord,
  byId: ReadonlyMap<string, DatasetRecord>,
  availableOfParent: number,
  current: DatasetRecord | null,
): void {
  if (type === 'FILESYSTEM') {
    const toCheck: Record<string, unknown> = {};
    for (const key of ['acltype', 'aclmode']) {
      const val = data[key] ?? (current ? effective(current, byId, key) : 'INHERIT');
      toCheck[key] = val === 'INHERIT' ? effective(parent, byId, key) : val;
    }
    if ((toCheck.acltype === 'POSIX' || toCheck.acltype === 'OFF') && toCheck.aclmode !== 'DISCARD') {
      add(errors, `${schema}.aclmode`, 'Must be set to DISCARD when acltype is POSIX or OFF');
    } else if (toCheck.acltype === 'NFSV4' && toCheck.aclmode === 'DISCARD') {
      add(errors, `${schema}.aclmode`, 'DISCARD aclmode may not be set for NFSv4 acl type');
    }
    for (const f of ['force_size', 'sparse', 'volsize', 'volblocksize']) {
      if (data[f] !== undefined) add(errors, `${schema}.${f}`, 'This field is not valid for FILESYSTEM');
    }
    const small = data.special_small_block_size;
    if (
      typeof small === 'number' &&
      !((small === 0 || (small >= 512 && small <= 1048576)) && (small & (small - 1)) === 0)
    ) {
      add(errors, `${schema}.special_small_block_size`, 'This field must be zero or a power of 2 from 512B to 1M');
    }
    // One of recordsize_choices' words, exactly: `128k` or `131072` is refused (MW/plugins/pool_/dataset.py:301-305).
    const rs = data.recordsize;
    if (
      typeof rs === 'string' &&
      rs !== '' &&
      rs !== 'INHERIT' &&
      !(RECORDSIZE_CHOICES as readonly string[]).includes(rs)
    ) {
      errors.push(datasetUpdateRefusal.recordsize(rs, schema));
    }
    return;
  }
  for (const f of ['aclmode', 'acltype', 'atime', 'casesensitivity', 'quota', 'refquota', 'recordsize']) {
    if (data[f] !== undefined) add(errors, `${schema}.${f}`, 'This field is not valid for VOLUME');
  }
  if (typeof data.volsize === 'number') {
    const available =
      availableOfParent +
      (current && typeof current.properties.refreservation === 'number' ? current.properties.refreservation : 0);
    if (data.volsize > available * 0.8 && data.force_size !== true) {
      add(errors, `${schema}.volsize`, 'It is not recommended to use more than 80% of your available space for VOLUME');
    }
    const blocksize =
      typeof data.volblocksize === 'string' ? recordsizeBytes(data.volblocksize.replace(/B$/, '')) : null;
    if (blocksize && data.volsize % blocksize !== 0)
      add(errors, `${schema}.volsize`, 'Volume size should be a multiple of volume block size');
  }
}

/** Internal datasets a dataset may not be created under (`internal_datasets_filters`, MW/plugins/pool_/dataset.py:110-118). */
function isInternal(name: string): boolean {
  const pool = name.split('/')[0]!;
  return (
    ['boot-pool', 'freenas-boot'].includes(pool) ||
    ['/.system', '/ix-applications/', '/ix-apps', '/.ix-virt'].some((p) => name.includes(p))
  );
}

/** share_type presets (MW/plugins/pool_/dataset.py:438-447): they override what was given. */
function applySharePreset(data: PoolDatasetCreate): void {
  if (data.type !== 'FILESYSTEM') return;
  switch (data.share_type) {
    case 'SMB':
      Object.assign(data, { casesensitivity: 'INSENSITIVE', acltype: 'NFSV4', aclmode: 'RESTRICTED' });
      break;
    case 'APPS':
    case 'MULTIPROTOCOL':
    case 'NFS':
      Object.assign(data, { casesensitivity: 'SENSITIVE', atime: 'OFF', acltype: 'NFSV4', aclmode: 'PASSTHROUGH' });
      break;
    case 'GENERIC':
      // No preset: what was given stands (no `case` for it in MW's match).
      break;
  }
}

const repr = pyRepr;

/** `validate_encryption_data` (MW/plugins/pool_/dataset_encryption_operations.py:67-115), without the key itself. */
function validateEncryption(errors: Errors, options: PoolDatasetCreate['encryption_options']): void {
  const schema = 'pool_dataset_create.encryption_options';
  if (options.passphrase) {
    for (const f of ['key', 'generate_key'] as const) {
      if (options[f])
        add(errors, `${schema}.${f}`, 'Must be disabled when dataset is to be encrypted with passphrase.');
    }
    return;
  }
  const provided = (['key', 'generate_key'] as const).filter((k) => options[k]);
  if (provided.length === 0) {
    add(
      errors,
      `${schema}.key`,
      'Please provide a key or select generate_key to automatically generate a key when passphrase is not provided.',
    );
  } else if (provided.length > 1) {
    for (const k of provided) add(errors, `${schema}.${k}`, `Only one of ${provided.join(', ')} must be provided.`);
  }
}

/** RE_ZFS_USER_PROP and ZFS_USER_PROP_MAX_LEN (stable/26 MW/plugins/pool_/utils.py:27-28). */
const ZFS_USER_PROP = /^[a-z0-9:._-]+$/;
const ZFS_USER_PROP_MAX_LEN = 255;

/**
 * The end of __common_validation in CREATE mode on 26 (stable/26 MW/plugins/pool_/dataset.py:351-366):
 * each key, one error at most, in this order.
 */
function checkCreateUserProperties(errors: Errors, schema: string, props: readonly { key: string }[]): void {
  const seen = new Set<string>();
  props.forEach(({ key }, index) => {
    const at = `${schema}.user_properties.${index}.key`;
    const field = TRUENAS_USER_PROPERTY_FIELDS.get(key);
    if (field !== undefined)
      add(errors, at, `${repr(key)} is managed by TrueNAS, use the ${repr(field)} field to set it.`);
    // len() counts code points, as the spread does.
    else if ([...key].length > ZFS_USER_PROP_MAX_LEN || !ZFS_USER_PROP.test(key))
      add(errors, at, `${repr(key)} is not a valid ZFS user property name.`);
    else if (seen.has(key)) add(errors, at, `${repr(key)} is specified more than once.`);
    else seen.add(key);
  });
}

/**
 * do_create's checks in its order (MW/plugins/pool_/dataset.py:400-560); returns the ancestors to
 * create. `existing` needs hold only the new name and its ancestors (listDatasetLineage).
 */
function validateCreate(
  appliance: Appliance,
  own: ReadonlyMap<string, number>,
  data: PoolDatasetCreate,
  existing: DatasetRecord[],
  pools: string[],
  /** No quota above the new name: its free space depends on its lineage alone. */
  lineageSuffices: boolean,
): { ancestors: string[] } {
  const at = 'pool_dataset_create.name';
  const errors: Errors = [];
  const byId = new Map(existing.map((d) => [d.id, d]));
  const pool = data.name.split('/')[0]!;
  if (!data.name.includes('/')) add(errors, at, 'You need a full name, e.g. pool/newdataset');
  else if (data.name.endsWith(' ')) add(errors, at, 'Trailing spaces are not permitted in dataset names');
  check(errors);

  let parentName = parentOf(data.name)!;
  if (data.create_ancestors) {
    while (!byId.has(parentName) && parentName.includes('/')) parentName = parentOf(parentName)!;
  }
  const parent = pools.includes(pool) ? byId.get(parentName) : undefined;
  applySharePreset(data);
  if (isInternal(data.name))
    add(errors, at, `${repr(data.name)} is using system internal managed dataset. Please specify a different parent.`);
  if (!parent) {
    if (data.create_ancestors)
      add(errors, at, 'Please specify a pool which exists for the dataset/volume to be created');
    else
      add(
        errors,
        at,
        parentOf(parentName) === null
          ? `zpool (${parentName}) does not exist.`
          : `Parent dataset (${parentName}) does not exist.`,
      );
  } else if (effective(parent, byId, 'readonly') === 'ON') {
    add(errors, 'pool_dataset_create.readonly', `Turn off readonly mode on ${parent.id} to create ${pool}`);
  }
  check(errors);
  const type = data.type;
  if (type === 'VOLUME' && data.volblocksize === undefined) data.volblocksize = '16K';
  // Only the parent's free space, not its entry: that would build every child's entry too.
  const free = new EntryBuilder(appliance, own, lineageSuffices ? existing : undefined).availableOf(parent!);
  commonValidation(errors, 'pool_dataset_create', data, type, parent!, byId, free, null);
  if (appliance.release.createChecksUserProperties)
    checkCreateUserProperties(errors, 'pool_dataset_create', data.user_properties);
  check(errors);

  if (datasetType(parent!) === 'VOLUME') add(errors, at, `${parent!.id}: parent may not be a ZFS volume`);
  const ancestors: string[] = [];
  for (let a = parentOf(data.name); a && !byId.has(a); a = parentOf(a)) ancestors.unshift(a);
  for (const id of [...ancestors, data.name]) {
    if (lstatSync(mountpointHost(appliance, id), { throwIfNoEntry: false })) {
      // EINVAL, not EEXIST: MW/plugins/pool_/dataset.py:471 adds it as a plain validation error.
      add(errors, at, `Path /mnt/${id} already exists`);
      break;
    }
  }

  for (let p = parentOf(data.name); p; p = parentOf(p)) {
    const d = byId.get(p);
    if (!d) continue;
    if (encryptionRootOf(d, byId) && !data.encryption && !data.inherit_encryption) {
      add(
        errors,
        'pool_dataset_create.encryption',
        `Cannot create an unencrypted dataset within an encrypted dataset (${p}).`,
      );
      break;
    }
  }
  if (data.encryption) {
    if (data.inherit_encryption)
      add(errors, 'pool_dataset_create.inherit_encryption', 'Must be disabled when encryption is enabled.');
    const parentRoot = encryptionRootOf(parent!, byId);
    if (!data.encryption_options.passphrase && parentRoot?.properties.keyformat === 'passphrase') {
      add(
        errors,
        'pool_dataset_create.encryption',
        'Passphrase encrypted datasets cannot have children encrypted with a key.',
      );
    }
    validateEncryption(errors, data.encryption_options);
  }
  check(errors);
  if (byId.has(data.name)) {
    // A volume has no path under /mnt, so only ZFS notices (MW/plugins/zfs_/dataset.py:154; derived).
    throw rpcErrors.call(ERRNO.EFAULT, 'Failed to create dataset: dataset already exists');
  }
  // libzfs checks the properties after the name (zfs_create: zfs_valid_proplist).
  if (!copiesTaken(data.copies)) throw datasetCreateRefusal.copies(data.name);
  return { ancestors };
}

/** The local properties a new dataset gets from its create input. */
function createdProperties(data: PoolDatasetCreate): DatasetRecord['properties'] {
  const properties: DatasetRecord['properties'] = {};
  applyProperties(properties, data);
  if (data.type === 'VOLUME') {
    properties.volblocksize = data.volblocksize ?? '16K';
    // A thick volume reserves its size (ZFS adds metadata overhead, which is not emulated).
    if (data.sparse !== true && data.refreservation === undefined) properties.refreservation = data.volsize;
  }
  if (data.encryption) {
    const passphrase = data.encryption_options.passphrase !== null;
    properties.encryption = data.encryption_options.algorithm;
    properties.keyformat = passphrase ? 'passphrase' : 'hex';
    if (passphrase) properties.pbkdf2iters = data.encryption_options.pbkdf2iters;
  }
  return properties;
}

function validateUpdate(
  appliance: Appliance,
  own: ReadonlyMap<string, number>,
  id: string,
  data: PoolDatasetUpdate,
  all: DatasetRecord[],
): DatasetRecord {
  const errors: Errors = [];
  const byId = new Map(all.map((d) => [d.id, d]));
  const d = byId.get(id);
  if (!d) throw rpcErrors.validation([['id', `${id} does not exist`, ERRNO.ENOENT]]);
  const type = datasetType(d);
  const parent = byId.get(parentOf(id) ?? id)!;
  const free = new EntryBuilder(appliance, own).availableOf(parent);
  commonValidation(
    errors,
    'pool_dataset_update',
    { ...data, volblocksize: d.properties.volblocksize },
    type,
    parent,
    byId,
    free,
    d,
  );
  const schema = 'pool_dataset_update';
  if (data.user_properties_update && !data.user_properties) {
    data.user_properties_update.forEach((u, i) => {
      const at = `${schema}.user_properties_update.${i}`;
      if (u.value !== undefined && u.remove)
        add(errors, `${at}.remove`, 'When "value" is specified, this cannot be set');
      else if (u.value === undefined && u.remove === undefined)
        add(errors, `${at}.value`, 'Either "value" or "remove" must be specified');
    });
  } else if (data.user_properties && data.user_properties_update) {
    add(
      errors,
      `${schema}.user_properties_update`,
      'Should not be specified when "user_properties" are explicitly specified',
    );
  }
  if (type === 'VOLUME' && data.volsize !== undefined && data.volsize < Number(d.properties.volsize)) {
    add(errors, `${schema}.volsize`, 'You cannot shrink a zvol from GUI, this may lead to data loss.');
  }
  check(errors);
  return d;
}

/** do_update's writes (MW/plugins/pool_/dataset.py:720-770): setting acltype resets aclmode with it. */
function applyUpdate(d: DatasetRecord, data: PoolDatasetUpdate): void {
  const props: Record<string, unknown> = { ...data };
  if (data.acltype === 'POSIX' || data.acltype === 'OFF') props.aclmode = 'DISCARD';
  else if (data.acltype === 'INHERIT') props.aclmode = 'INHERIT';
  applyProperties(d.properties, props);
  if (data.volsize !== undefined && typeof d.properties.refreservation === 'number')
    d.properties.refreservation = data.volsize;
  applyTrueNasFields(d.user_properties, data, 'UPDATE');
  let updates = data.user_properties_update ?? [];
  if (data.user_properties) {
    // Explicit user_properties replace the set: the ones not listed are removed.
    const keep = new Set(data.user_properties.map((p) => p.key));
    const internal = new Set<string>(Object.values(TRUENAS_USER_PROPERTIES));
    updates = [
      ...data.user_properties,
      ...Object.keys(d.user_properties)
        .filter((k) => !keep.has(k) && !internal.has(k))
        .map((key) => ({ key, remove: true })),
    ];
  }
  for (const u of updates) {
    if ('remove' in u && u.remove) delete d.user_properties[u.key];
    else if (u.value !== undefined) d.user_properties[u.key] = u.value;
  }
}

export const poolDatasetMethods = [
  // MW/plugins/pool_/dataset_info.py:18-23: `{v: v for v in ZFS_CHECKSUM_CHOICES if v != 'OFF'}`.
  implement(
    poolDatasetContract['pool.dataset.checksum_choices'],
    () => Object.fromEntries(CHECKSUM_CHOICES.map((c) => [c, c])) as { [K in (typeof CHECKSUM_CHOICES)[number]]: K },
  ),
  implement(poolDatasetContract['pool.dataset.query'], async ({ appliance }, filters, options) => {
    const records = appliance.datasets();
    const keys = records.map((d) => ({ id: d.id, name: d.id, pool: d.pool, type: datasetType(d) }));
    const load = async (rows: readonly string[] | undefined, fields?: ReadonlySet<string>) => {
      // No space field asked: no file is measured. Otherwise a page measures what its rows count.
      const spaceless = fields !== undefined && !SPACE_FIELDS.some((f) => fields.has(f));
      const only = spaceless
        ? new Set<string>()
        : rows === undefined
          ? undefined
          : ownBytesNeededForRows(records, rows);
      const builder = new EntryBuilder(appliance, await measureOwnBytes(appliance, only), records, fields);
      return (id: string) => builder.entry(id);
    };
    return datasetQuery(keys, load, snapshotsByDataset(appliance), filters, options);
  }),
  implement(poolDatasetContract['pool.dataset.get_instance'], async ({ appliance }, id) =>
    (await EntryBuilder.load(appliance, id)).entry(id),
  ),
  implement(poolDatasetContract['pool.dataset.create'], async ({ appliance }, data) => {
    const { store } = appliance;
    // Measured before the write lock is taken: the walk is asynchronous, the transaction is not.
    // Only what the new entry counts (a fresh dataset holds no files yet): its quota'd ancestors.
    const needed = ownBytesNeededFor(appliance, data.name);
    const own = await measureOwnBytes(appliance, needed);
    const created = store.write(() => {
      // Nothing new inside a dataset whose files are being removed (datasets/deletion.ts).
      assertNotBeingDeleted(appliance, `/mnt/${data.name}`, 'Failed to create dataset');
      // Inside the transaction, as another process may have written since: only the name's lineage.
      const lineage = listDatasetLineage(store.db, data.name);
      const { ancestors } = validateCreate(appliance, own, data, lineage, listPools(store.db), !lineage.some(hasQuota));
      const pool = data.name.split('/')[0]!;
      const now = Date.now();
      for (const id of ancestors)
        insertDataset(store.db, { id, pool, properties: {}, user_properties: {}, created_at: now });
      const user: DatasetRecord['user_properties'] = {};
      applyTrueNasFields(user, data, 'CREATE');
      for (const p of data.user_properties) user[p.key] = p.value;
      insertDataset(store.db, {
        id: data.name,
        pool,
        properties: createdProperties(data),
        user_properties: user,
        created_at: now,
      });
      // The directories are made inside the transaction: if mkdir fails, no row is kept. A volume has none.
      const mounted = data.type === 'VOLUME' ? ancestors : [...ancestors, data.name];
      for (const id of mounted) mkdirSync(mountpointHost(appliance, id), { mode: 0o755 });
      // Under no quota, the new entry reads only its lineage (it has no children yet); the whole
      // table would be read again just for it, which made every create cost more than the last.
      return lineage.some(hasQuota) ? undefined : listDatasetLineage(store.db, data.name);
    });
    return new EntryBuilder(appliance, own, created).entry(data.name);
  }),
  implement(poolDatasetContract['pool.dataset.update'], async ({ appliance }, id, data) => {
    const { store } = appliance;
    const own = await measureOwnBytes(appliance, ownBytesNeededFor(appliance, id));
    store.write(() => {
      const all = listDatasets(store.db);
      const d = validateUpdate(appliance, own, id, data, all);
      // What ZFS refuses, judged and written in this one transaction: two racing updates cannot
      // each pass against the other's old values (a reservation above a quota set meanwhile).
      const refusal = zfsUpdateRefusal(new EntryBuilder(appliance, own, all).entry(id), data);
      if (refusal) throw refusal;
      applyUpdate(d, data);
      updateDataset(store.db, d);
    });
    return (await EntryBuilder.load(appliance, id)).entry(id);
  }),
  implement(poolDatasetContract['pool.dataset.delete'], async ({ appliance }, id, options) => {
    const { store } = appliance;
    // `zfs destroy` of a busy dataset: ZFS's words, errno EBUSY (MW/plugins/zfs_/dataset.py:235-240).
    const busy = () => rpcErrors.call(ERRNO.EBUSY, `Failed to delete dataset: cannot destroy '${id}': dataset is busy`);
    const plan = store.write(() => {
      const all = listDatasets(store.db);
      const target = all.find((d) => d.id === id);
      if (!target) throw rpcErrors.instanceNotFound('PoolDataset', id);
      const children = all.filter((d) => d.id.startsWith(`${id}/`));
      if (children.length > 0 && !options.recursive) {
        throw datasetDeleteRefusal.children(id);
      }
      const isRoot = parentOf(id) === null;
      if (isRoot && !options.recursive) {
        throw datasetDeleteRefusal.poolRoot(id);
      }
      // Its shares go before ZFS is asked, and stay gone when ZFS refuses (MW/plugins/pool_/dataset.py:828-846).
      const attachments = deleteDatasetAttachments(appliance, id);
      const snapshots = listSnapshots(store.db).filter((s) => s.dataset === id || s.dataset.startsWith(`${id}/`));
      if (snapshots.length > 0 && !options.recursive) {
        // Past the middleware's own check of children, `zfs destroy` refuses a dataset with
        // snapshots and lists them (MW/plugins/zfs_/dataset.py:229-240; zfs_main.c destroy_check_dependent).
        const kind = datasetType(target) === 'VOLUME' ? 'volume' : 'filesystem';
        return {
          refusal: datasetDeleteRefusal.snapshots(
            id,
            kind,
            snapshots.map((s) => s.id),
          ),
          attachments,
        };
      }
      const gone = (isRoot ? children : [target, ...children]).map((d) => d.id);
      if (gone.some((d) => deletionCovering(appliance, `/mnt/${d}`) !== null)) return { refusal: busy(), attachments };
      // Checked before anything is deleted: no mountpoint may lead out of the pool.
      const hosts = gone.map((d) => mountpointHost(appliance, d));
      return { gone, hosts, snapshots, attachments };
    });
    sendAttachmentEvents(appliance, plan.attachments);
    if ('refusal' in plan) throw plan.refusal;
    // One outcome: the datasets are marked first (no upload or child dataset may start in them),
    // their files removed, and only then their rows; a removal that fails lifts the marks and
    // keeps the rows, so the dataset is still there to delete again. The files go outside the
    // write lock and asynchronously: a large tree must hold up neither other writers nor clients.
    const unmark = markDeleting(appliance, plan.gone);
    try {
      for (const host of [...plan.hosts].sort((a, b) => b.length - a.length))
        await removeSettled(host, store.mntDir, busy);
      store.write(() => {
        deleteDatasets(store.db, plan.gone);
        // `zfs destroy -r` takes the snapshots with it, a pool root's own included.
        deleteSnapshots(
          store.db,
          plan.snapshots.map((s) => s.id),
        );
      });
    } finally {
      unmark();
    }
    // The copies are the state's own: nothing races them, and a leftover is swept at the next start.
    for (const s of plan.snapshots) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
    return true as const;
  }),
];
