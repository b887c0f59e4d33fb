/*
 * The pure part of changing a dataset, for `stor dataset update` and anything else that compares a
 * dataset with what it should be (a desired-state plan): what is wanted, as a set of properties;
 * the changes from a 25.10.1 `pool.dataset.query` entry to it (`{property, old, new}`); the
 * `pool.dataset.update` params that make them; and the refusal 25.10.1 would answer them with,
 * predicted from reads alone (the update itself is never called to find out).
 */
import { validateParams } from '../../core/appliance/params.js';
import { poolDatasetContract, RECORDSIZE_CHOICES, type PoolDatasetEntry } from '../../core/contract/pool-dataset.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError, rpcErrors, type ValidationTriple } from '../../core/errors.js';
import {
  copiesTaken,
  datasetCreateRefusal,
  datasetUpdateRefusal,
  zfsUpdateRefusal,
} from '../../core/refusals/pool-dataset.js';

/** Properties with a flag of their own, by their `pool.dataset.update` field names. */
export const UPDATE_PROPERTIES = [
  'comments',
  'quota',
  'refquota',
  'reservation',
  'compression',
  'atime',
  'readonly',
  'recordsize',
  'sync',
  'exec',
] as const;

/** Fields 25.10.1 takes `INHERIT` for among them (MW/api/v25_10_1/pool_dataset.py; `inheritable` in MW/plugins/pool_/dataset.py:723-750). */
export const INHERITABLE_PROPERTIES = ['compression', 'atime', 'readonly', 'recordsize', 'sync', 'exec'] as const;

/**
 * Sizes: bytes; `null` (none) is stored as 0, which is how 25.10.1 takes "no quota" (`Literal[0, None]`).
 * `refreservation` has no flag of its own; a desired-state file sets it (state/datasets.ts).
 */
export const SIZE_PROPERTIES: ReadonlySet<string> = new Set(['quota', 'refquota', 'reservation', 'refreservation']);

/** The choices 25.10.1's model names for the word-valued flags, for completion (the model itself refuses the rest). */
export const ON_OFF = ['ON', 'OFF'] as const;
export const SYNC_CHOICES = ['STANDARD', 'ALWAYS', 'DISABLED'] as const;

/** A boolean only from a desired-state file that wrote one (`readonly: true`): passed on for 25.10.1's model to judge. */
export type PropertyValue = string | number | boolean | null;

/**
 * What a dataset should have: properties to set, properties (or user property keys) to inherit, user
 * properties to set. `set` is keyed by `pool.dataset.update` field names: the flags' (UPDATE_PROPERTIES)
 * and any other a desired-state file names (refreservation, …).
 */
export interface DesiredDataset {
  set: Partial<Record<string, PropertyValue>>;
  /** Field names of INHERITABLE_PROPERTIES, or user property keys (`ns:key`), which are removed. */
  inherit: string[];
  /** User properties (`ns:key` → value). */
  user: Record<string, string>;
}

/** One difference: the property (a field name, or a user property key), its value now and the one wanted (`INHERIT` to reset). */
export interface DatasetChange {
  property: string;
  old: PropertyValue;
  new: PropertyValue;
}

/** The flags that say what is wanted, as given on a command line. */
export interface DatasetUpdateFlags {
  comments?: string;
  quota?: string;
  refquota?: string;
  reservation?: string;
  compression?: string;
  atime?: string;
  readonly?: string;
  recordsize?: string;
  sync?: string;
  exec?: string;
  inherit?: string[];
  set?: string[];
}

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };

/** `10G`, `512M`, `1.5T`, `1073741824` (binary units, as ZFS reads them; `K`, `KB`, `KiB` alike) in bytes; `none` or `0` is 0. */
export function parseSize(raw: string): number {
  const text = raw.trim();
  if (/^none$/i.test(text)) return 0;
  const m = /^(\d+(?:\.\d+)?)\s*([KMGTP]?)(?:i?B)?$/i.exec(text);
  const bytes = m ? Math.round(Number(m[1]) * UNITS[m[2]!.toUpperCase()]!) : NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new StorError(E.USAGE, `not a size: ${JSON.stringify(raw)}`, {
      hint: 'use bytes or a binary unit, e.g. 10G, 512M, 1.5T; none (or 0) for no limit',
    });
  }
  return bytes;
}

/** A user property key as 25.10.1 takes one: it needs a colon (`UserProperty.key`, pattern `.*:.*`). */
export const isUserKey = (key: string) => key.includes(':');

/**
 * Fields 25.10.1 keeps as ZFS user properties (`org.freenas:description`, …) and shows only inside
 * `user_properties`, under the field's name (MW/plugins/pool_/dataset.py do_update's `real_name`
 * column; MW/plugins/pool_/dataset_query_utils.py `user_property_names_to_be_renamed`).
 */
const TRUENAS_FIELDS: ReadonlySet<string> = new Set([
  'comments',
  'managedby',
  'quota_warning',
  'quota_critical',
  'refquota_warning',
  'refquota_critical',
]);

/**
 * Fields whose model type is an int (`copies: int | Literal["INHERIT"]`, the quota thresholds,
 * special_small_block_size, volsize: MW/api/v25_10_1/pool_dataset.py; the model is strict, so `"2"`
 * is refused) while the entry shows them as text (`copies.value` is `"2"`; the thresholds are user
 * properties): compared as numbers.
 */
const INT_FIELDS: ReadonlySet<string> = new Set([
  'copies',
  'special_small_block_size',
  'volsize',
  'quota_warning',
  'quota_critical',
  'refquota_warning',
  'refquota_critical',
]);

/** Free text, taken and compared as written. */
const TEXT_FIELDS: ReadonlySet<string> = new Set(['comments', 'managedby']);

/** A recordsize in bytes as recordsize_choices words it (`512`, `4K`, `1M`); other numbers as they are, for the plugin to refuse. */
function recordsizeWord(n: number): string {
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2}M`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}K`;
  return String(n);
}

/**
 * A property's value as written in a desired-state file (YAML gives strings, numbers, booleans) in
 * the terms `pool.dataset.create`/`update` take it, which is also how it is compared with the entry:
 * sizes in bytes (`10G`, `none`), ints as numbers (`copies: "2"` is 2), free text as text, a
 * recordsize as its choice word (`131072` is `128K`), and every other word upper-cased, a boolean
 * as `ON`/`OFF` (`readonly: true`). What is still not a value the field takes goes on as it is, for
 * 25.10.1's model or plugin to refuse in its words. A size that is not one throws (USAGE).
 */
export function apiValue(property: string, raw: string | number | boolean): PropertyValue {
  if (isUserKey(property) || TEXT_FIELDS.has(property)) return String(raw);
  const word =
    typeof raw === 'boolean' ? (raw ? 'ON' : 'OFF') : typeof raw === 'string' ? raw.trim().toUpperCase() : raw;
  if (word === 'INHERIT') return word;
  if (SIZE_PROPERTIES.has(property)) return typeof raw === 'string' ? parseSize(raw) : raw;
  if (INT_FIELDS.has(property)) return typeof word === 'string' && /^\d+$/.test(word) ? Number(word) : word;
  if (property === 'recordsize' && typeof word === 'number') return recordsizeWord(word);
  return typeof word === 'number' ? String(word) : word;
}

/**
 * The flags as a desired set. Words are upper-cased (25.10.1 takes `LZ4`, `ON`, `128K`; the model
 * names its choices when the word is still wrong); sizes are parsed. A property both set and
 * inherited, or an `--inherit` of what cannot be inherited, is a usage error.
 */
export function desiredFromFlags(flags: DatasetUpdateFlags): DesiredDataset {
  const set: DesiredDataset['set'] = {};
  for (const name of UPDATE_PROPERTIES) {
    const raw = flags[name];
    if (raw === undefined) continue;
    if (name === 'comments') set.comments = raw;
    else if (SIZE_PROPERTIES.has(name)) set[name] = parseSize(raw);
    else set[name] = raw.trim().toUpperCase();
  }
  const user: Record<string, string> = {};
  let last: string | undefined;
  for (const item of flags.set ?? []) {
    // A list option splits at commas: a piece without `=` after a pair was part of its value (`--set ns:tags=a,b`).
    if (!item.includes('=') && last !== undefined) {
      user[last] += `,${item}`;
      continue;
    }
    const at = item.indexOf('=');
    if (at <= 0)
      throw new StorError(E.USAGE, `--set takes key=value: ${JSON.stringify(item)}`, {
        hint: 'e.g. --set org.example:owner=alice (a user property key has a colon)',
      });
    last = item.slice(0, at);
    user[last] = item.slice(at + 1);
  }
  const inherit = [...new Set(flags.inherit ?? [])];
  for (const name of inherit) {
    if (!(INHERITABLE_PROPERTIES as readonly string[]).includes(name) && !isUserKey(name)) {
      const clear = SIZE_PROPERTIES.has(name) ? `; ${name} is not inherited, \`--${name} none\` clears it` : '';
      throw new StorError(E.USAGE, `--inherit ${name}: not a property that can be inherited${clear}`, {
        hint: `--inherit takes ${INHERITABLE_PROPERTIES.join(', ')}, or a user property key (ns:key), which it removes`,
      });
    }
    if (name in set || name in user)
      throw new StorError(E.USAGE, `${name} is both set and inherited`, {
        hint: `drop --inherit ${name} or its value`,
      });
  }
  return { set, inherit, user };
}

/** Whether anything at all is wanted. */
export const wantsAnything = (d: DesiredDataset): boolean =>
  Object.keys(d.set).length + d.inherit.length + Object.keys(d.user).length > 0;

type Property = { parsed?: unknown; value?: string | null; source?: string | null; source_info?: unknown } | undefined;

const propertyOf = (entry: PoolDatasetEntry, name: string): Property =>
  (entry as Record<string, unknown>)[name] as Property;

/** A user property's value on the entry (`comments` is `org.freenas:description`, shown renamed), or null when not set. */
function userValue(entry: PoolDatasetEntry, key: string): string | null {
  const p = entry.user_properties?.[key] as Property;
  return typeof p?.value === 'string' ? p.value : null;
}

/** A property's value now, in the terms `pool.dataset.update` takes it: bytes for sizes (0 for none), the upper-case word otherwise. */
export function currentValue(entry: PoolDatasetEntry, property: string): PropertyValue {
  if (isUserKey(property)) return userValue(entry, property);
  const p = propertyOf(entry, property);
  if (SIZE_PROPERTIES.has(property)) return typeof p?.parsed === 'number' ? p.parsed : 0;
  const v = TRUENAS_FIELDS.has(property) ? userValue(entry, property) : (p?.value ?? null);
  // Ints as numbers, as the model takes them: `copies.value` is "2" (MW/plugins/pool_/dataset_query_utils.py
  // normalize_zfs_properties: `value` is text, `parsed` the int), a threshold a user property's text.
  return INT_FIELDS.has(property) && v !== null && /^\d+$/.test(v) ? Number(v) : v;
}

/** Where a property's value comes from, as `show` words it: `local`, `inherited from tank`, `default`. */
export function sourceOf(p: Property): string | null {
  if (!p?.source) return null;
  const source = p.source.toLowerCase();
  return source === 'inherited' && typeof p.source_info === 'string' && p.source_info !== ''
    ? `inherited from ${p.source_info}`
    : source;
}

/** Recordsize words that name the same size (`512`, `512B`) compare equal. */
function recordsizeBytes(word: PropertyValue): number | null {
  const i = (RECORDSIZE_CHOICES as readonly PropertyValue[]).indexOf(word);
  return i < 0 ? null : 2 ** (9 + Math.max(0, i - 1));
}

function same(property: string, now: PropertyValue, wanted: PropertyValue): boolean {
  if (property === 'comments') return (now ?? '') === (wanted ?? '');
  if (property === 'recordsize') {
    const a = recordsizeBytes(now);
    return a !== null && a === recordsizeBytes(wanted);
  }
  return now === wanted;
}

/**
 * The changes from the entry (`pool.dataset.query` of 25.10.1) to what is wanted, in flag order
 * (then any other property set, as given), then inherits, then user properties. Nothing that already
 * holds is a change: an inherit of a property that is not set locally, a user property already
 * removed or already equal.
 */
export function planChanges(entry: PoolDatasetEntry, desired: DesiredDataset): DatasetChange[] {
  const changes: DatasetChange[] = [];
  const flagged: readonly string[] = UPDATE_PROPERTIES;
  for (const name of [...flagged, ...Object.keys(desired.set).filter((k) => !flagged.includes(k))]) {
    if (!(name in desired.set)) continue;
    const now = currentValue(entry, name);
    const wanted = desired.set[name]!;
    if (!same(name, now, wanted)) changes.push({ property: name, old: now, new: wanted });
  }
  for (const name of desired.inherit) {
    const now = currentValue(entry, name);
    const local =
      isUserKey(name) || TRUENAS_FIELDS.has(name) ? now !== null : propertyOf(entry, name)?.source === 'LOCAL';
    if (local) changes.push({ property: name, old: now, new: 'INHERIT' });
  }
  for (const [key, wanted] of Object.entries(desired.user)) {
    const now = currentValue(entry, key);
    if (now !== wanted) changes.push({ property: key, old: now, new: wanted });
  }
  return changes;
}

/** The second parameter of `pool.dataset.update` that makes the changes; user properties go as `user_properties_update`. */
export function updateParams(changes: readonly DatasetChange[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const user: { key: string; value?: string; remove?: boolean }[] = [];
  for (const c of changes) {
    if (isUserKey(c.property))
      user.push(c.new === 'INHERIT' ? { key: c.property, remove: true } : { key: c.property, value: String(c.new) });
    else data[c.property] = c.new;
  }
  if (user.length > 0) data.user_properties_update = user;
  return data;
}

/**
 * What 25.10.1 answers `pool.dataset.update(id, data)` with, from the entry alone, in its order:
 * the model (pydantic; attributes `data.*`, MW/api/base/handler/accept.py), then the plugin's
 * `__common_validation` (`pool_dataset_update.*`: fields a volume has not,
 * MW/plugins/pool_/dataset.py:322-326; the recordsize choices, :301-305), then what libzfs and ZFS
 * refuse (a copies outside 1–3, a reservation above the quota, a quota below used:
 * refusals/pool-dataset.ts zfsUpdateRefusal, the emulator's own judgement). Null when it would take
 * it. The role check comes before all of these and needs the caller's identity: the verb predicts it.
 */
export function predictUpdateRefusal(entry: PoolDatasetEntry, data: Record<string, unknown>): RpcError | null {
  try {
    validateParams(poolDatasetContract['pool.dataset.update'].params, [entry.id, data]);
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  const errors: ValidationTriple[] = [];
  if (entry.type === 'VOLUME') {
    for (const f of ['aclmode', 'acltype', 'atime', 'casesensitivity', 'quota', 'refquota', 'recordsize'])
      if (f in data) errors.push(datasetUpdateRefusal.notForVolume(f));
  } else if (!isRecordsizeChoice(data.recordsize))
    errors.push(datasetUpdateRefusal.recordsize(String(data.recordsize)));
  if (errors.length > 0) return rpcErrors.validation(errors);
  return zfsUpdateRefusal(entry, data);
}

/** Whether 25.10.1's plugin takes the recordsize given (none given, INHERIT, or one of the choices exactly: MW/plugins/pool_/dataset.py:301-305). */
const isRecordsizeChoice = (rs: unknown): boolean =>
  typeof rs !== 'string' || rs === '' || rs === 'INHERIT' || (RECORDSIZE_CHOICES as readonly string[]).includes(rs);

/**
 * What 25.10.1 answers `pool.dataset.create(data)` for a filesystem with, from the data alone: the
 * model, then the plugin's recordsize check, then libzfs's `copies` (datasetCreateRefusal). The
 * checks that need the target (the parent exists, is not read-only, the path is free) are not
 * predicted. Null when it would take it.
 */
export function predictCreateRefusal(data: Record<string, unknown>): RpcError | null {
  try {
    validateParams(poolDatasetContract['pool.dataset.create'].params, [data]);
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  if (data.type !== 'VOLUME' && !isRecordsizeChoice(data.recordsize))
    return rpcErrors.validation([datasetCreateRefusal.recordsize(String(data.recordsize))]);
  if (!copiesTaken(data.copies)) return datasetCreateRefusal.copies(String(data.name));
  return null;
}
