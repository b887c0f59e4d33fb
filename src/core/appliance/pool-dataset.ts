import { mkdirSync, readdirSync, lstatSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { deleteDatasets, insertDataset, listDatasets, updateDataset, type DatasetRecord } from '../store/datasets.js';
import { listPools } from '../store/files.js';
import type { Appliance } from './appliance.js';
import {
  FIXED_PROPERTIES,
  PROPERTIES,
  TRUENAS_USER_PROPERTIES,
  creationShown,
  formatSize,
  parentOf,
  recordsizeBytes,
  resolvedProperties,
  shownUserProperties,
} from './dataset-properties.js';
import { sandboxPath } from './filesystem.js';
import { defineMethod, roles } from './method.js';
import { query } from './query.js';
import { QUERY_PARAMS, instanceParams } from './query-params.js';

const NAME_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** Settable properties: each one's choices plus INHERIT, or a number / free text. */
function propertySchemas(withInherit: boolean) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(PROPERTIES)) {
    const extra = withInherit && spec.inheritable ? ['INHERIT'] : [];
    if (spec.choices) shape[name] = z.enum([...spec.choices, ...extra] as [string, ...string[]]).optional();
    else if (name === 'copies') shape[name] = z.union([z.int().min(1).max(3), z.literal('INHERIT')]).optional();
    else if (['quota', 'refquota', 'reservation', 'refreservation'].includes(name)) shape[name] = z.int().min(0).nullable().optional();
    else shape[name] = z.string().max(1024).optional();
  }
  return shape;
}

const userPropertyKey = z.string().regex(/^[a-z0-9_.-]+:[a-z0-9_.:-]+$/i, 'key must be namespace:property');
const userProperties = z.array(z.strictObject({ key: userPropertyKey, value: z.string().max(8192) }));

// `comments` and `managedby` are plain fields of create and update in 25.10.1, stored as ZFS user
// properties (MW/api/v25_10_1/pool_dataset.py PoolDatasetCreate; MW/plugins/pool_/dataset.py do_create).
const datasetCreate = z.strictObject({
  name: z.string().min(1).max(1024),
  type: z.enum(['FILESYSTEM', 'VOLUME']).default('FILESYSTEM'),
  create_ancestors: z.boolean().default(false),
  share_type: z.enum(['GENERIC', 'MULTIPROTOCOL', 'NFS', 'SMB', 'APPS']).default('GENERIC'),
  user_properties: userProperties.default([]),
  comments: z.string().max(1024).default('INHERIT'),
  managedby: z.string().min(1).max(1024).default('INHERIT'),
  ...propertySchemas(true),
});

const datasetUpdate = z.strictObject({
  user_properties_update: z.array(z.strictObject({ key: userPropertyKey, value: z.string().max(8192).optional(), remove: z.boolean().optional() })).optional(),
  comments: z.string().max(1024).optional(),
  managedby: z.string().min(1).max(1024).optional(),
  ...Object.fromEntries(Object.entries(propertySchemas(true)).filter(([k]) => k !== 'casesensitivity')),
});

const deleteOptions = z.strictObject({ recursive: z.boolean().default(false), force: z.boolean().default(false) });

/**
 * Where a dataset's mountpoint is on this machine, through the same sandbox check as every other
 * path: a symlink planted in a parent must not send mkdir or a recursive delete out of the pool.
 */
function mountpointHost(appliance: Appliance, id: string): string {
  return sandboxPath(appliance, `/mnt/${id}`).host;
}

/** Bytes of the files below `dir`, not counting child datasets' mountpoints; symlinks are not followed. */
function ownBytes(dir: string, skip: ReadonlySet<string>): number {
  let total = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (skip.has(p)) continue;
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else total += st.size;
    }
  };
  walk(dir);
  return total;
}

/** For reports: a mountpoint that fails the sandbox check counts as empty rather than failing a listing. */
function mountpointHostOrNull(appliance: Appliance, id: string): string | null {
  try {
    return mountpointHost(appliance, id);
  } catch {
    return null;
  }
}

/** A space-accounting property: bytes, shown human-readable in `value` as 25.10.1 does. */
const bytesProperty = (n: number) => ({ parsed: n, rawvalue: String(n), value: formatSize(n), source: 'NONE', source_info: null });

/** Builds dataset entries; each dataset's tree is walked once, however many entries include it. */
class EntryBuilder {
  private readonly all: DatasetRecord[];
  private readonly byId: Map<string, DatasetRecord>;
  private readonly used = new Map<string, number>();

  constructor(private readonly appliance: Appliance) {
    this.all = appliance.datasets();
    this.byId = new Map(this.all.map((d) => [d.id, d]));
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  private childrenOf(id: string): DatasetRecord[] {
    return this.all.filter((c) => parentOf(c.id) === id);
  }

  /** `used`: the files of the dataset and of all its descendants (as ZFS counts it). */
  private usedOf(d: DatasetRecord): number {
    let used = this.used.get(d.id);
    if (used === undefined) {
      const children = this.childrenOf(d.id);
      const skip = new Set(children.map((c) => mountpointHostOrNull(this.appliance, c.id)).filter((h): h is string => h !== null));
      const mount = mountpointHostOrNull(this.appliance, d.id);
      used = (mount ? ownBytes(mount, skip) : 0) + children.reduce((sum, c) => sum + this.usedOf(c), 0);
      this.used.set(d.id, used);
    }
    return used;
  }

  entry(id: string): Record<string, unknown> {
    const d = this.byId.get(id);
    if (!d) throw rpcErrors.instanceNotFound('PoolDataset', id);
    const mount = mountpointHostOrNull(this.appliance, d.id);
    let available = 0;
    try {
      const fs = statfsSync(mount ?? '');
      available = fs.bavail * fs.bsize;
    } catch {
      // the directory vanished under us; report nothing free
    }
    const children = this.childrenOf(d.id).map((c) => this.entry(c.id));
    const used = this.usedOf(d);
    const byChildren = this.childrenOf(d.id).reduce((sum, c) => sum + this.usedOf(c), 0);
    return {
      id: d.id,
      type: 'FILESYSTEM',
      name: d.id,
      pool: d.pool,
      encrypted: false,
      encryption_root: null,
      key_loaded: false,
      locked: false,
      mountpoint: `/mnt/${d.id}`,
      children,
      // No top-level comments or managedby: they live here, present only when set.
      user_properties: shownUserProperties(d.user_properties),
      ...resolvedProperties(d, this.byId),
      ...FIXED_PROPERTIES,
      used: bytesProperty(used),
      available: bytesProperty(available),
      usedbydataset: bytesProperty(used - byChildren),
      usedbychildren: bytesProperty(byChildren),
      usedbyrefreservation: bytesProperty(0),
      usedbysnapshots: bytesProperty(0),
      creation: {
        parsed: { $date: Math.floor(d.created_at / 1000) * 1000 },
        rawvalue: String(Math.floor(d.created_at / 1000)),
        value: creationShown(d.created_at),
        source: 'NONE',
        source_info: null,
      },
    };
  }

  entries(): Record<string, unknown>[] {
    return this.all.map((d) => this.entry(d.id));
  }
}

/** Local property values from create/update input; INHERIT removes the local value. */
function applyProperties(target: DatasetRecord['properties'], data: Record<string, unknown>, schema: string): void {
  const rs = data.recordsize;
  if (typeof rs === 'string' && rs !== 'INHERIT' && recordsizeBytes(rs) === null) {
    throw rpcErrors.validation([[`${schema}.recordsize`, `'${rs}' is an invalid recordsize.`, ERRNO.EINVAL]]);
  }
  for (const name of Object.keys(PROPERTIES)) {
    if (!Object.hasOwn(data, name) || data[name] === undefined) continue;
    const v = data[name] as string | number | null;
    if (v === 'INHERIT') delete target[name];
    else target[name] = v;
  }
}

/**
 * The TrueNAS user-property fields of an input. On create INHERIT means "not set"; on update only
 * managedby treats INHERIT as a reset: comments is written as given (MW/plugins/pool_/dataset.py,
 * the `inheritable` column of do_create and do_update).
 */
function applyTrueNasFields(target: DatasetRecord['user_properties'], data: { comments?: string | undefined; managedby?: string | undefined }, mode: 'CREATE' | 'UPDATE'): void {
  for (const field of ['comments', 'managedby'] as const) {
    const v = data[field];
    if (v === undefined) continue;
    const key = TRUENAS_USER_PROPERTIES[field];
    const inheritable = mode === 'CREATE' || field === 'managedby';
    if (inheritable && v === 'INHERIT') delete target[key];
    else target[key] = v;
  }
}

function checkUserPropertiesUpdate(updates: readonly { value?: string | undefined; remove?: boolean | undefined }[]): void {
  const triples: ValidationTriple[] = [];
  for (const [i, u] of updates.entries()) {
    const at = `pool_dataset_update.user_properties_update.${i}`;
    if (u.value !== undefined && u.remove) triples.push([`${at}.remove`, 'When "value" is specified, this cannot be set', ERRNO.EINVAL]);
    else if (u.value === undefined && u.remove === undefined) triples.push([`${at}.value`, 'Either "value" or "remove" must be specified', ERRNO.EINVAL]);
  }
  if (triples.length > 0) throw rpcErrors.validation(triples);
}

function validateCreate(appliance: Appliance, data: z.output<typeof datasetCreate>, existing: DatasetRecord[], pools: string[]): { ancestors: string[] } {
  const at = 'pool_dataset_create.name';
  const fail = (field: string, message: string, errno: number = ERRNO.EINVAL): never => {
    throw rpcErrors.validation([[field, message, errno] as ValidationTriple]);
  };
  if (data.type === 'VOLUME') fail('pool_dataset_create.type', 'Volumes (zvols) are not emulated by stor; create a FILESYSTEM dataset');
  if (!data.name.includes('/')) fail(at, 'You need a full name, e.g. pool/newdataset');
  if (data.name.endsWith(' ')) fail(at, 'Trailing spaces are not permitted in dataset names');
  const segments = data.name.split('/');
  if (!segments.every((s) => NAME_SEGMENT.test(s))) fail(at, 'Invalid dataset name');
  const pool = segments[0]!;
  if (!pools.includes(pool)) {
    fail(at, data.create_ancestors ? 'Please specify a pool which exists for the dataset/volume to be created' : `zpool (${pool}) does not exist.`);
  }
  const ids = new Set(existing.map((d) => d.id));
  const ancestors: string[] = [];
  for (let parent = parentOf(data.name); parent && !ids.has(parent); parent = parentOf(parent)) ancestors.unshift(parent);
  if (ancestors.length > 0 && !data.create_ancestors) fail(at, `Parent dataset (${parentOf(data.name)}) does not exist.`);
  for (const id of [...ancestors, data.name]) {
    if (ids.has(id) || lstatSync(mountpointHost(appliance, id), { throwIfNoEntry: false })) {
      // EINVAL, not EEXIST: MW/plugins/pool_/dataset.py:471 adds it as a plain validation error.
      fail(at, `Path /mnt/${id} already exists`);
    }
  }
  return { ancestors };
}

export const poolDatasetMethods = [
  defineMethod({
    name: 'pool.dataset.query',
    summary: 'List datasets (filters, options); every dataset flat, the pool roots included.',
    access: roles('DATASET_READ'),
    params: QUERY_PARAMS,
    handler: ({ appliance }, filters, options) => query(new EntryBuilder(appliance).entries(), filters, options),
  }),
  defineMethod({
    name: 'pool.dataset.get_instance',
    summary: 'One dataset by id (its full name, e.g. tank/a).',
    access: roles('DATASET_READ'),
    params: instanceParams(z.string().min(1).max(1024)),
    handler: ({ appliance }, id) => new EntryBuilder(appliance).entry(id),
  }),
  defineMethod({
    name: 'pool.dataset.create',
    summary: 'Create a FILESYSTEM dataset {name: "pool/a/b", create_ancestors, comments, …}.',
    access: roles('DATASET_WRITE'),
    params: [{ name: 'data', schema: datasetCreate }],
    handler: ({ appliance }, data) => {
      const { store } = appliance;
      store.write(() => {
        const existing = listDatasets(store.db);
        const { ancestors } = validateCreate(appliance, data, existing, listPools(store.db));
        const pool = data.name.split('/')[0]!;
        const now = Date.now();
        for (const id of ancestors) insertDataset(store.db, { id, pool, properties: {}, user_properties: {}, created_at: now });
        const properties: DatasetRecord['properties'] = {};
        applyProperties(properties, data, 'pool_dataset_create');
        const user: DatasetRecord['user_properties'] = {};
        applyTrueNasFields(user, data, 'CREATE');
        for (const p of data.user_properties) user[p.key] = p.value;
        insertDataset(store.db, { id: data.name, pool, properties, user_properties: user, created_at: now });
        // The directories are made inside the transaction: if mkdir fails, no row is kept.
        for (const id of [...ancestors, data.name]) mkdirSync(mountpointHost(appliance, id), { mode: 0o755 });
      });
      return new EntryBuilder(appliance).entry(data.name);
    },
  }),
  defineMethod({
    name: 'pool.dataset.update',
    summary: 'Change properties of a dataset; INHERIT resets one to the inherited value.',
    access: roles('DATASET_WRITE'),
    params: [
      { name: 'id', schema: z.string().min(1).max(1024) },
      { name: 'data', schema: datasetUpdate },
    ],
    handler: ({ appliance }, id, data) => {
      const { store } = appliance;
      store.write(() => {
        const d = listDatasets(store.db).find((x) => x.id === id);
        if (!d) throw rpcErrors.validation([['id', `${id} does not exist`, ERRNO.ENOENT]]);
        checkUserPropertiesUpdate(data.user_properties_update ?? []);
        applyProperties(d.properties, data, 'pool_dataset_update');
        applyTrueNasFields(d.user_properties, data, 'UPDATE');
        for (const u of data.user_properties_update ?? []) {
          if (u.remove) delete d.user_properties[u.key];
          else if (u.value !== undefined) d.user_properties[u.key] = u.value;
        }
        updateDataset(store.db, d);
      });
      return new EntryBuilder(appliance).entry(id);
    },
  }),
  defineMethod({
    name: 'pool.dataset.delete',
    summary: 'Delete a dataset {recursive, force}; children need recursive; a pool root keeps itself.',
    access: roles('DATASET_DELETE'),
    params: [
      { name: 'id', schema: z.string().min(1).max(1024) },
      { name: 'options', schema: deleteOptions, default: () => ({ recursive: false, force: false }) },
    ],
    handler: ({ appliance }, id, options) => {
      const { store } = appliance;
      const doomed = store.write(() => {
        const all = listDatasets(store.db);
        const target = all.find((d) => d.id === id);
        if (!target) throw rpcErrors.instanceNotFound('PoolDataset', id);
        const children = all.filter((d) => d.id.startsWith(`${id}/`));
        if (children.length > 0 && !options.recursive) {
          throw rpcErrors.call(ERRNO.ENOTEMPTY, `Failed to delete dataset: cannot destroy '${id}': filesystem has children`);
        }
        const isRoot = parentOf(id) === null;
        if (isRoot && !options.recursive) {
          throw rpcErrors.call(ERRNO.EINVAL, `Failed to delete dataset: '${id}' is the root dataset of pool ${id}; it goes only with the pool`);
        }
        const gone = (isRoot ? children : [target, ...children]).map((d) => d.id);
        // Checked before anything is deleted: no mountpoint may lead out of the pool.
        const hosts = gone.map((d) => mountpointHost(appliance, d));
        deleteDatasets(store.db, gone);
        return hosts;
      });
      // The files go after the commit, outside the write lock: a large tree must not hold every
      // other writer up, and a dataset is gone once its row is.
      for (const host of doomed.sort((a, b) => b.length - a.length)) rmSync(host, { recursive: true, force: true });
      return true;
    },
  }),
];
