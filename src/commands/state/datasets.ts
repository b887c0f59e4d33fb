/**
 * Datasets in the desired state, kept to one file: what `stor export` writes of a dataset, and the
 * plan and the calls, made with `stor dataset update`'s module (dataset/update-plan.ts): a file's
 * dataset as a desired set, compared with the `pool.dataset.query` entry, the `pool.dataset.update`
 * params that make the changes, and 25.10.1's refusal predicted from reads at plan time.
 * Created with pool.dataset.create (MW/api/v25_10_1/pool_dataset.py PoolDatasetCreate).
 */
import { call, type Needed } from '../../core/contract/client.js';
import type { PoolDatasetEntry } from '../../core/contract/pool-dataset.js';
import { E } from '../../core/error-catalogue.js';
import { StorError, type RpcError } from '../../core/errors.js';
import type { StateDataset } from '../../core/state/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { commentOf } from '../dataset/model.js';
import {
  currentValue,
  apiValue,
  isUserKey,
  planChanges,
  predictCreateRefusal,
  predictUpdateRefusal,
  SIZE_PROPERTIES,
  sourceOf,
  UPDATE_PROPERTIES,
  updateParams,
  type DatasetChange,
  type DesiredDataset,
  type PropertyValue,
} from '../dataset/update-plan.js';
import { DATASET_MARK } from './ownership.js';
import type { FieldChange } from './plan-model.js';

/** A dataset as the state reads it: every property, `id` always. */
export type Dataset = Needed<'pool.dataset.query', 'id'>;

/**
 * What `stor export` writes of a dataset besides its comment: the properties stor sets (the update
 * flags' and refreservation), when set on the dataset itself (LOCAL).
 */
const EXPORTED = [...UPDATE_PROPERTIES.filter((p) => p !== 'comments'), 'refreservation'];

const UNITS = ['', 'K', 'M', 'G', 'T', 'P'];

/** Bytes as a state file writes them: `10G` when a whole number of a unit, else bytes. */
function sizeText(bytes: number): string | number {
  for (let i = UNITS.length - 1; i > 0; i--)
    if (bytes > 0 && bytes % 1024 ** i === 0) return `${bytes / 1024 ** i}${UNITS[i]}`;
  return bytes;
}

/** A value in the file's terms: sizes as `10G` (none as null), the rest as the appliance gives it. */
function fileValue(property: string, v: PropertyValue): PropertyValue {
  if (SIZE_PROPERTIES.has(property) && typeof v === 'number') return v === 0 ? null : sizeText(v);
  return v;
}

/** The datasets a state file holds: filesystems below a pool root, not the appliance's own (`.system`, `ix-*`). */
export function exportDatasets(all: readonly Dataset[]): StateDataset[] {
  return all
    .filter(
      (d) =>
        d.id.includes('/') &&
        d.type === 'FILESYSTEM' &&
        !d.id.split('/').some((part) => part.startsWith('.') || part.startsWith('ix-')),
    )
    .map((d) => {
      const properties: Record<string, string | number> = {};
      for (const key of EXPORTED) {
        if (sourceOf((d as Record<string, unknown>)[key] as Parameters<typeof sourceOf>[0]) !== 'local') continue;
        const v = fileValue(key, currentValue(d, key));
        if (typeof v === 'string' || typeof v === 'number') properties[key] = v;
      }
      const comments = commentOf(d);
      return {
        name: d.id,
        ...(comments !== null ? { comments } : {}),
        ...(Object.keys(properties).length ? { properties } : {}),
      };
    });
}

/**
 * A file's dataset as `stor dataset update` takes what is wanted, each value in the terms 25.10.1's
 * create and update take it and the entry is compared in (update-plan.ts apiValue: sizes in bytes,
 * ints as numbers, words upper-cased, `true` as `ON`); `inherit` (any case) for a property is an
 * inherit, a change only while the dataset sets its own value. A user property (a key with a colon,
 * `org.example:owner`) is free text, kept as written. A size that is not one is the file's fault
 * (BAD_STATE_FILE), named by its path.
 */
export function desiredOf(want: StateDataset): DesiredDataset {
  const set: DesiredDataset['set'] = want.comments !== undefined ? { comments: want.comments } : {};
  const user: DesiredDataset['user'] = {};
  const inherit: string[] = [];
  for (const [key, raw] of Object.entries(want.properties ?? {})) {
    if (isUserKey(key)) {
      user[key] = String(raw);
      continue;
    }
    let v: PropertyValue;
    try {
      v = apiValue(key, raw);
    } catch (err) {
      if (err instanceof StorError)
        throw new StorError(E.BAD_STATE_FILE, `datasets ${want.name}: properties.${key}: ${err.message}`, {
          hint: err.hint,
        });
      throw err;
    }
    if (v === 'INHERIT' && key !== 'comments') inherit.push(key);
    else set[key] = v;
  }
  return { set, inherit, user };
}

const asField = (c: DatasetChange): FieldChange => ({
  field: c.property,
  from: fileValue(c.property, c.old),
  to: fileValue(c.property, c.new),
});

/** The fields that differ; for a dataset not there yet, every field the file sets. */
export function diffDataset(want: StateDataset, have: PoolDatasetEntry | undefined): FieldChange[] {
  const desired = desiredOf(want);
  if (!have)
    return [...Object.entries(desired.set), ...Object.entries(desired.user)].map(([field, to]) => ({
      field,
      from: null,
      to: fileValue(field, to ?? null),
    }));
  return planChanges(have, desired).map(asField);
}

function createParams(want: StateDataset) {
  const { set, user } = desiredOf(want);
  return {
    name: want.name,
    ...set,
    user_properties: [
      ...Object.entries(user).map(([key, value]) => ({ key, value })),
      { key: DATASET_MARK, value: want.name },
    ],
  };
}

/**
 * 25.10.1's refusal of the call that would make the file's dataset, predicted from reads: for an
 * update, as `stor dataset update` predicts it (predictUpdateRefusal: the model, the plugin's checks,
 * what ZFS refuses); for a create, alike (predictCreateRefusal: the model, the plugin's recordsize,
 * libzfs's copies). Null when it would take it.
 */
export function predictDatasetRefusal(want: StateDataset, have: PoolDatasetEntry | undefined): RpcError | null {
  if (have) {
    const changes = planChanges(have, desiredOf(want));
    return changes.length ? predictUpdateRefusal(have, updateParams(changes)) : null;
  }
  return predictCreateRefusal(createParams(want));
}

export async function createDataset(t: Transport, want: StateDataset): Promise<void> {
  await call(t, 'pool.dataset.create', [createParams(want)]);
}

/** Sends only what differs from `have` (as planned), the params predictDatasetRefusal judged. */
export async function updateDataset(t: Transport, want: StateDataset, have: PoolDatasetEntry): Promise<void> {
  await call(t, 'pool.dataset.update', [want.name, updateParams(planChanges(have, desiredOf(want)))]);
}

export async function deleteDataset(t: Transport, name: string): Promise<void> {
  await call(t, 'pool.dataset.delete', [name, { recursive: false }]);
}
