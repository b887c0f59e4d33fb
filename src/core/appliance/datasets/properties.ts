import type { DatasetRecord } from '../../store/datasets.js';

/** Which kind of dataset shows a property (`BASE_FS_PROPS` / `BASE_VOL_PROPS`, MW/plugins/pool_/dataset_query_utils.py). */
type Scope = 'both' | 'FILESYSTEM' | 'VOLUME';

/**
 * The ZFS properties the emulator keeps, with their defaults and how the API shows them:
 * `{parsed, rawvalue, value, source, source_info}` (MW/plugins/pool_/dataset_query_utils.py:501-507).
 * A property set on a dataset is LOCAL there and INHERITED by its children; otherwise it is the
 * DEFAULT. Values are kept as the API takes them (`LZ4`, `128K`, bytes).
 */
interface PropertySpec {
  default: string | number | null;
  inheritable: boolean;
  scope: Scope;
}

export const PROPERTIES: Record<string, PropertySpec> = {
  sync: { default: 'STANDARD', inheritable: true, scope: 'both' },
  compression: { default: 'LZ4', inheritable: true, scope: 'both' },
  atime: { default: 'ON', inheritable: true, scope: 'FILESYSTEM' },
  exec: { default: 'ON', inheritable: true, scope: 'FILESYSTEM' },
  readonly: { default: 'OFF', inheritable: true, scope: 'both' },
  deduplication: { default: 'OFF', inheritable: true, scope: 'both' },
  checksum: { default: 'ON', inheritable: true, scope: 'both' },
  copies: { default: 1, inheritable: true, scope: 'both' },
  snapdir: { default: 'HIDDEN', inheritable: true, scope: 'FILESYSTEM' },
  snapdev: { default: 'HIDDEN', inheritable: true, scope: 'both' },
  recordsize: { default: '128K', inheritable: true, scope: 'FILESYSTEM' },
  special_small_block_size: { default: 0, inheritable: true, scope: 'FILESYSTEM' },
  aclmode: { default: 'DISCARD', inheritable: true, scope: 'FILESYSTEM' },
  acltype: { default: 'POSIX', inheritable: true, scope: 'FILESYSTEM' },
  casesensitivity: { default: 'SENSITIVE', inheritable: false, scope: 'FILESYSTEM' },
  quota: { default: null, inheritable: false, scope: 'FILESYSTEM' },
  refquota: { default: null, inheritable: false, scope: 'FILESYSTEM' },
  reservation: { default: null, inheritable: false, scope: 'both' },
  refreservation: { default: null, inheritable: false, scope: 'both' },
  volsize: { default: null, inheritable: false, scope: 'VOLUME' },
};

/** A volume is the dataset with a `volsize`: ZFS has that property for volumes only. */
export function datasetType(d: DatasetRecord): 'FILESYSTEM' | 'VOLUME' {
  return Object.hasOwn(d.properties, 'volsize') ? 'VOLUME' : 'FILESYSTEM';
}

/**
 * Fields that 25.10.1 stores as ZFS user properties, not as ZFS properties: the API takes them as
 * create/update fields, and query shows them only inside `user_properties`, renamed to the field
 * name, and only when set (MW/plugins/zfs_/utils.py `TNUserProp`; MW/plugins/pool_/dataset.py
 * do_create/do_update; MW/plugins/pool_/dataset_query_utils.py `user_property_names_to_be_renamed`).
 */
export const TRUENAS_USER_PROPERTIES = {
  comments: 'org.freenas:description',
  quota_warning: 'org.freenas:quota_warning',
  quota_critical: 'org.freenas:quota_critical',
  refquota_warning: 'org.freenas:refquota_warning',
  refquota_critical: 'org.freenas:refquota_critical',
  managedby: 'org.truenas:managedby',
} as const;

/** Each TrueNAS user property's field name (`user_property_names_to_be_renamed`). */
export const TRUENAS_USER_PROPERTY_FIELDS: ReadonlyMap<string, string> = new Map<string, string>(
  Object.entries(TRUENAS_USER_PROPERTIES).map(([field, key]) => [key, field]),
);

export interface PropertyValue {
  parsed: unknown;
  rawvalue: string;
  value: string | null;
  source: 'LOCAL' | 'INHERITED' | 'DEFAULT' | 'NONE';
  source_info: string | null;
}

/** `user_properties` of an entry: every user property as LOCAL, the TrueNAS ones under their field names (`normalize_user_properties`). */
export function shownUserProperties(user: Readonly<Record<string, string>>): Record<string, PropertyValue> {
  return Object.fromEntries(
    Object.entries(user).map(([key, v]) => [
      TRUENAS_USER_PROPERTY_FIELDS.get(key) ?? key,
      { parsed: v, rawvalue: v, value: v, source: 'LOCAL', source_info: null },
    ]),
  );
}

/** Properties 25.10.1 converts from on/off to true/false; any other raw value parses as null. */
const BOOLEAN = new Set(['checksum', 'atime', 'exec', 'readonly', 'xattr']);
const SIZE = new Set(['quota', 'refquota', 'reservation', 'refreservation']);
const BLOCK_SIZES = new Set(['recordsize', 'volblocksize']);

/** humanfriendly's binary `format_size`, which 25.10.1 uses for size properties' `value`. */
export function formatSize(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  for (let i = units.length - 1; i >= 0; i--) {
    const divider = 1024 ** (i + 1);
    if (bytes >= divider) return `${(bytes / divider).toFixed(2).replace(/\.?0+$/, '')} ${units[i]}`;
  }
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** A recordsize as the API takes it (`128K`, `1M`, `512`) in bytes, or null when it is not one. */
export function recordsizeBytes(v: string): number | null {
  const m = /^(\d+)([KM]?)$/i.exec(v);
  if (!m) return null;
  const n = Number(m[1]) * (m[2] === '' ? 1 : m[2]!.toUpperCase() === 'K' ? 1024 : 1024 * 1024);
  return n >= 512 && n <= 16 * 1024 * 1024 && (n & (n - 1)) === 0 ? n : null;
}

function blockSizeShown(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / (1024 * 1024))}M`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)}K`;
  return String(bytes);
}

/** One property as `normalize_zfs_properties` (MW/plugins/pool_/dataset_query_utils.py) shows it. */
export function shown(
  name: string,
  v: string | number | null,
  source: PropertyValue['source'],
  from: string | null,
): PropertyValue {
  if (SIZE.has(name)) {
    // ZFS keeps "none" as 0, and 25.10.1 shows 0 as null.
    if (v === null || v === 0) return { parsed: null, rawvalue: '0', value: null, source, source_info: from };
    return { parsed: v, rawvalue: String(v), value: formatSize(Number(v)), source, source_info: from };
  }
  if (name === 'volsize')
    return { parsed: Number(v), rawvalue: String(v), value: formatSize(Number(v)), source, source_info: from };
  if (BLOCK_SIZES.has(name)) {
    const bytes = recordsizeBytes(String(v).replace(/B$/, '')) ?? 131072;
    return { parsed: bytes, rawvalue: String(bytes), value: blockSizeShown(bytes), source, source_info: from };
  }
  // Kept as strings even when numeric (the `string_properties` of normalize_zfs_properties).
  if (name === 'special_small_block_size' || name === 'pbkdf2iters')
    return { parsed: String(v), rawvalue: String(v), value: String(v), source, source_info: from };
  if (typeof v === 'number') return { parsed: v, rawvalue: String(v), value: String(v), source, source_info: from };
  const raw = String(v).toLowerCase();
  const parsed = BOOLEAN.has(name) ? (raw === 'on' ? true : raw === 'off' ? false : null) : raw;
  return { parsed, rawvalue: raw, value: raw.toUpperCase(), source, source_info: from };
}

/** One property of PROPERTIES on `d`: local, else inherited from the nearest ancestor setting it, else the default. */
function resolvedProperty(
  d: DatasetRecord,
  byId: ReadonlyMap<string, DatasetRecord>,
  name: string,
  spec: PropertySpec,
): PropertyValue {
  if (Object.hasOwn(d.properties, name)) return shown(name, d.properties[name]!, 'LOCAL', null);
  if (spec.inheritable) {
    for (let parent = parentOf(d.id); parent; parent = parentOf(parent)) {
      const p = byId.get(parent);
      if (p && Object.hasOwn(p.properties, name)) return shown(name, p.properties[name]!, 'INHERITED', parent);
    }
  }
  return shown(name, spec.default, 'DEFAULT', null);
}

/** Every property of `d` its type shows, resolving inheritance through `byId`. */
export function resolvedProperties(
  d: DatasetRecord,
  byId: ReadonlyMap<string, DatasetRecord>,
): Record<string, PropertyValue> {
  const type = datasetType(d);
  const out: Record<string, PropertyValue> = {};
  for (const [name, spec] of Object.entries(PROPERTIES)) {
    if (spec.scope !== 'both' && spec.scope !== type) continue;
    out[name] = resolvedProperty(d, byId, name, spec);
  }
  if (type === 'VOLUME') out.volblocksize = shown('volblocksize', d.properties.volblocksize ?? '16K', 'NONE', null);
  return {
    ...out,
    ...encryptionProperties(encryptionRootOf(d, byId)),
    ...(type === 'FILESYSTEM' ? FILESYSTEM_FIXED : {}),
    ...FIXED_PROPERTIES,
  };
}

/**
 * The properties resolvedProperties gives of `d` that `wanted` names, each the same value: a
 * query's `select` reads a few, and resolving each walks the ancestors.
 */
export function resolvedPropertiesOf(
  d: DatasetRecord,
  byId: ReadonlyMap<string, DatasetRecord>,
  wanted: Iterable<string>,
): Record<string, PropertyValue> {
  const type = datasetType(d);
  const out: Record<string, PropertyValue> = {};
  let encryption: Record<string, PropertyValue> | undefined;
  for (const name of wanted) {
    const spec = Object.hasOwn(PROPERTIES, name) ? PROPERTIES[name]! : undefined;
    if (spec) {
      if (spec.scope === 'both' || spec.scope === type) out[name] = resolvedProperty(d, byId, name, spec);
    } else if (name === 'volblocksize') {
      if (type === 'VOLUME') out.volblocksize = shown('volblocksize', d.properties.volblocksize ?? '16K', 'NONE', null);
    } else if (name === 'encryption_algorithm' || name === 'key_format' || name === 'pbkdf2iters') {
      encryption ??= encryptionProperties(encryptionRootOf(d, byId));
      out[name] = encryption[name]!;
    } else if (Object.hasOwn(FIXED_PROPERTIES, name)) out[name] = FIXED_PROPERTIES[name]!;
    else if (type === 'FILESYSTEM' && Object.hasOwn(FILESYSTEM_FIXED, name)) out[name] = FILESYSTEM_FIXED[name]!;
  }
  return out;
}

/** The encryption root `d` is under (itself included), or null when it is not encrypted. */
export function encryptionRootOf(d: DatasetRecord, byId: ReadonlyMap<string, DatasetRecord>): DatasetRecord | null {
  for (let id: string | null = d.id; id; id = parentOf(id)) {
    const r = byId.get(id);
    if (r && Object.hasOwn(r.properties, 'encryption')) return r.properties.encryption === 'off' ? null : r;
  }
  return null;
}

/** How an unencrypted dataset shows the encryption properties, and how an encrypted one does. */
function encryptionProperties(root: DatasetRecord | null): Record<string, PropertyValue> {
  if (!root) {
    return {
      encryption_algorithm: { parsed: 'off', rawvalue: 'off', value: null, source: 'DEFAULT', source_info: null },
      key_format: { parsed: 'none', rawvalue: 'none', value: null, source: 'DEFAULT', source_info: null },
      pbkdf2iters: { parsed: '0', rawvalue: '0', value: '0', source: 'DEFAULT', source_info: null },
    };
  }
  const algorithm = String(root.properties.encryption).toLowerCase();
  const keyformat = String(root.properties.keyformat);
  return {
    encryption_algorithm: {
      parsed: algorithm,
      rawvalue: algorithm,
      value: algorithm.toUpperCase(),
      source: 'NONE',
      source_info: null,
    },
    key_format: {
      parsed: keyformat,
      rawvalue: keyformat,
      value: keyformat.toUpperCase(),
      source: 'NONE',
      source_info: null,
    },
    pbkdf2iters: shown('pbkdf2iters', root.properties.pbkdf2iters ?? 0, 'NONE', null),
  };
}

/** Properties the emulator does not vary, as 25.10.1 shows them. */
const FIXED_PROPERTIES: Record<string, PropertyValue> = {
  compressratio: { parsed: '1.00', rawvalue: '1.00', value: '1.00x', source: 'NONE', source_info: null },
  origin: { parsed: '', rawvalue: '', value: '', source: 'NONE', source_info: null },
};

const FILESYSTEM_FIXED: Record<string, PropertyValue> = {
  // middlewared creates every filesystem with xattr=sa (MW/plugins/zfs_/dataset.py create).
  xattr: { parsed: null, rawvalue: 'sa', value: 'SA', source: 'LOCAL', source_info: null },
};

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `creation.value` as 25.10.1 formats it: local time, hour space-padded (`Mon Jan 05  9:07 2026`).
 * English names from tables: `toLocaleDateString` cost more than the rest of a dataset's entry.
 */
export function creationShown(ms: number): string {
  const d = new Date(ms);
  const day = WEEKDAYS[d.getDay()]!;
  const month = MONTHS[d.getMonth()]!;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day} ${month} ${pad(d.getDate())} ${String(d.getHours()).padStart(2, ' ')}:${pad(d.getMinutes())} ${d.getFullYear()}`;
}

export function parentOf(id: string): string | null {
  const i = id.lastIndexOf('/');
  return i < 0 ? null : id.slice(0, i);
}
