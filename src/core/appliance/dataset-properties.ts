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
  comments: { default: '', inheritable: false },
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
  managedby: { default: 'INHERIT', inheritable: true },
};

export interface PropertyValue {
  parsed: unknown;
  rawvalue: string;
  value: string | null;
  source: 'LOCAL' | 'INHERITED' | 'DEFAULT' | 'NONE';
  source_info: string | null;
}

function shown(name: string, v: string | number | null, source: PropertyValue['source'], from: string | null): PropertyValue {
  if (v === null) return { parsed: null, rawvalue: 'none', value: null, source, source_info: from };
  if (typeof v === 'number') return { parsed: v, rawvalue: String(v), value: String(v), source, source_info: from };
  const raw = name === 'comments' || name === 'recordsize' || name === 'managedby' ? v : v.toLowerCase();
  const parsed = v === 'ON' ? true : v === 'OFF' ? false : raw;
  return { parsed, rawvalue: raw, value: v, source, source_info: from };
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

export function parentOf(id: string): string | null {
  const i = id.lastIndexOf('/');
  return i < 0 ? null : id.slice(0, i);
}
