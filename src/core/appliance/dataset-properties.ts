import type { DatasetRecord } from '../store/datasets.js';

/**
 * The ZFS properties the emulator keeps, with their defaults and how the API shows them:
 * `{parsed, rawvalue, value, source, source_info}` (facts §8.1). A property set on a dataset is
 * LOCAL there and INHERITED by its children; otherwise it is the DEFAULT.
 */
interface PropertySpec {
  default: string | number | null;
  inheritable: boolean;
  /** Values the API accepts (upper case); omitted for free-form or numeric properties. */
  choices?: readonly string[];
}

const ON_OFF = ['ON', 'OFF'] as const;

export const PROPERTIES: Record<string, PropertySpec> = {
  sync: { default: 'STANDARD', inheritable: true, choices: ['STANDARD', 'ALWAYS', 'DISABLED'] },
  compression: {
    default: 'LZ4',
    inheritable: true,
    choices: ['ON', 'OFF', 'LZ4', 'GZIP', 'GZIP-1', 'GZIP-9', 'ZSTD', 'ZSTD-FAST', 'ZLE', 'LZJB'],
  },
  atime: { default: 'ON', inheritable: true, choices: ON_OFF },
  exec: { default: 'ON', inheritable: true, choices: ON_OFF },
  readonly: { default: 'OFF', inheritable: true, choices: ON_OFF },
  deduplication: { default: 'OFF', inheritable: true, choices: ['ON', 'VERIFY', 'OFF'] },
  checksum: { default: 'ON', inheritable: true, choices: ['ON', 'OFF', 'FLETCHER2', 'FLETCHER4', 'SHA256', 'SHA512', 'SKEIN', 'EDONR', 'BLAKE3'] },
  copies: { default: 1, inheritable: true },
  snapdir: { default: 'HIDDEN', inheritable: true, choices: ['DISABLED', 'VISIBLE', 'HIDDEN'] },
  recordsize: { default: '128K', inheritable: true },
  aclmode: { default: 'DISCARD', inheritable: true, choices: ['PASSTHROUGH', 'RESTRICTED', 'DISCARD'] },
  acltype: { default: 'POSIX', inheritable: true, choices: ['OFF', 'NFSV4', 'POSIX'] },
  casesensitivity: { default: 'SENSITIVE', inheritable: false, choices: ['SENSITIVE', 'INSENSITIVE'] },
  quota: { default: null, inheritable: false },
  refquota: { default: null, inheritable: false },
  reservation: { default: null, inheritable: false },
  refreservation: { default: null, inheritable: false },
};

/**
 * Fields that 25.10.1 stores as ZFS user properties, not as ZFS properties: the API takes them as
 * create/update fields, and query shows them only inside `user_properties`, renamed to the field
 * name, and only when set (MW/plugins/zfs_/utils.py `TNUserProp`; MW/plugins/pool_/dataset.py
 * do_create/do_update; MW/plugins/pool_/dataset_query_utils.py `user_property_names_to_be_renamed`).
 */
export const TRUENAS_USER_PROPERTIES = {
  comments: 'org.freenas:description',
  managedby: 'org.truenas:managedby',
} as const;

export type TrueNasUserField = keyof typeof TRUENAS_USER_PROPERTIES;

const RENAMED = new Map<string, string>(Object.entries(TRUENAS_USER_PROPERTIES).map(([field, key]) => [key, field]));

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
    Object.entries(user).map(([key, v]) => [RENAMED.get(key) ?? key, { parsed: v, rawvalue: v, value: v, source: 'LOCAL', source_info: null }]),
  );
}

/** Properties 25.10.1 converts from on/off to true/false; any other raw value parses as null. */
const BOOLEAN = new Set(['checksum', 'atime', 'exec', 'readonly', 'xattr']);
const SIZE = new Set(['quota', 'refquota', 'reservation', 'refreservation']);

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

function recordsizeShown(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / (1024 * 1024))}M`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)}K`;
  return String(bytes);
}

/** One property as `normalize_zfs_properties` (MW/plugins/pool_/dataset_query_utils.py) shows it. */
function shown(name: string, v: string | number | null, source: PropertyValue['source'], from: string | null): PropertyValue {
  if (SIZE.has(name)) {
    // ZFS keeps "none" as 0, and 25.10.1 shows 0 as null.
    if (v === null || v === 0) return { parsed: null, rawvalue: '0', value: null, source, source_info: from };
    return { parsed: v, rawvalue: String(v), value: formatSize(Number(v)), source, source_info: from };
  }
  if (typeof v === 'number') return { parsed: v, rawvalue: String(v), value: String(v), source, source_info: from };
  if (name === 'recordsize') {
    const bytes = recordsizeBytes(String(v)) ?? 131072;
    return { parsed: bytes, rawvalue: String(bytes), value: recordsizeShown(bytes), source, source_info: from };
  }
  const raw = String(v).toLowerCase();
  const parsed = BOOLEAN.has(name) ? (raw === 'on' ? true : raw === 'off' ? false : null) : raw;
  return { parsed, rawvalue: raw, value: raw.toUpperCase(), source, source_info: from };
}

/** Every property of `d` as the API shows it, resolving inheritance through `byId`. */
export function resolvedProperties(d: DatasetRecord, byId: ReadonlyMap<string, DatasetRecord>): Record<string, PropertyValue> {
  const out: Record<string, PropertyValue> = {};
  for (const [name, spec] of Object.entries(PROPERTIES)) {
    if (Object.hasOwn(d.properties, name)) {
      out[name] = shown(name, d.properties[name]!, 'LOCAL', null);
      continue;
    }
    let found: PropertyValue | undefined;
    if (spec.inheritable) {
      for (let parent = parentOf(d.id); parent; parent = parentOf(parent)) {
        const p = byId.get(parent);
        if (p && Object.hasOwn(p.properties, name)) {
          found = shown(name, p.properties[name]!, 'INHERITED', parent);
          break;
        }
      }
    }
    out[name] = found ?? shown(name, spec.default, 'DEFAULT', null);
  }
  return out;
}

/** Properties the emulator does not vary, as 25.10.1 shows them on an unencrypted filesystem. */
export const FIXED_PROPERTIES: Record<string, PropertyValue> = {
  compressratio: { parsed: '1.00', rawvalue: '1.00', value: '1.00x', source: 'NONE', source_info: null },
  encryption_algorithm: { parsed: 'off', rawvalue: 'off', value: null, source: 'DEFAULT', source_info: null },
  key_format: { parsed: 'none', rawvalue: 'none', value: null, source: 'DEFAULT', source_info: null },
  pbkdf2iters: { parsed: '0', rawvalue: '0', value: '0', source: 'DEFAULT', source_info: null },
  origin: { parsed: '', rawvalue: '', value: '', source: 'NONE', source_info: null },
  snapdev: { parsed: 'hidden', rawvalue: 'hidden', value: 'HIDDEN', source: 'DEFAULT', source_info: null },
  special_small_block_size: { parsed: '0', rawvalue: '0', value: '0', source: 'DEFAULT', source_info: null },
  // middlewared creates every filesystem with xattr=sa (MW/plugins/zfs_/dataset.py create).
  xattr: { parsed: null, rawvalue: 'sa', value: 'SA', source: 'LOCAL', source_info: null },
};

/** `creation.value` as 25.10.1 formats it: local time, hour space-padded (`Mon Jan 05  9:07 2026`). */
export function creationShown(ms: number): string {
  const d = new Date(ms);
  const day = d.toLocaleDateString('en-US', { weekday: 'short' });
  const month = d.toLocaleDateString('en-US', { month: 'short' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day} ${month} ${pad(d.getDate())} ${String(d.getHours()).padStart(2, ' ')}:${pad(d.getMinutes())} ${d.getFullYear()}`;
}

export function parentOf(id: string): string | null {
  const i = id.lastIndexOf('/');
  return i < 0 ? null : id.slice(0, i);
}
