/**
 * Datasets in the desired state, kept to one file: comments and the ZFS properties stor sets, created
 * with pool.dataset.create and changed with pool.dataset.update (MW/api/v25_10_1/pool_dataset.py
 * PoolDatasetCreate/Update). Meant to be switched to `stor dataset update`'s compare/validate module
 * once it lands (branch `ds`).
 */
import { call } from '../../core/contract/client.js';
import type { PoolDatasetEntry } from '../../core/contract/pool-dataset.js';
import type { StateDataset } from '../../core/state/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { commentOf } from '../dataset/model.js';
import { DATASET_MARK } from './ownership.js';
import type { Dataset } from './world.js';
import type { FieldChange } from './plan-model.js';

/** Properties taken in bytes by pool.dataset.create/update (ints), written `10G` in a state file. */
const SIZE_PROPERTIES = new Set(['quota', 'refquota', 'reservation', 'refreservation']);
const UNITS = ['', 'K', 'M', 'G', 'T', 'P'];
/** What `stor export` writes of a dataset: the properties stor sets, when set on the dataset itself (LOCAL). */
const EXPORTED = ['compression', 'quota', 'refquota', 'reservation', 'refreservation', 'atime', 'readonly', 'recordsize', 'sync', 'exec'];

export function sizeBytes(v: string | number | boolean): number | null {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGTP]?)i?B?\s*$/i.exec(String(v));
  if (!m) return null;
  return Math.round(Number(m[1]) * 1024 ** UNITS.indexOf(m[2]!.toUpperCase()));
}

function sizeText(bytes: number): string | number {
  for (let i = UNITS.length - 1; i > 0; i--) if (bytes > 0 && bytes % 1024 ** i === 0) return `${bytes / 1024 ** i}${UNITS[i]}`;
  return bytes;
}

type Prop = { value?: string | null; rawvalue?: string | null; source?: string | null } | undefined;
const propOf = (d: PoolDatasetEntry, key: string): Prop => (d as unknown as Record<string, Prop>)[key];

/** What a property is now, in the file's terms; null when unset. */
function current(d: PoolDatasetEntry, key: string): string | number | null {
  const p = propOf(d, key);
  if (!p) return null;
  if (SIZE_PROPERTIES.has(key)) {
    const n = Number(p.rawvalue ?? 0);
    return n === 0 ? null : sizeText(n);
  }
  return p.value ?? null;
}

function same(key: string, have: string | number | null, want: string | number | boolean): boolean {
  if (SIZE_PROPERTIES.has(key)) return (have === null ? 0 : sizeBytes(have)) === sizeBytes(want);
  return have !== null && String(have).toUpperCase() === String(want).toUpperCase();
}

/** The datasets a state file holds: filesystems below a pool root, not the appliance's own (`.system`, `ix-*`). */
export function exportDatasets(all: readonly Dataset[]): StateDataset[] {
  return all
    .filter((d) => d.id.includes('/') && d.type === 'FILESYSTEM' && !d.id.split('/').some((part) => part.startsWith('.') || part.startsWith('ix-')))
    .map((d) => {
      const properties: Record<string, string | number> = {};
      for (const key of EXPORTED) {
        const p = propOf(d, key);
        if (p && typeof p === 'object' && p.source === 'LOCAL' && 'rawvalue' in p) {
          const v = current(d, key);
          if (v !== null) properties[key] = v;
        }
      }
      const comments = commentOf(d);
      return { name: d.id, ...(comments !== null ? { comments } : {}), ...(Object.keys(properties).length ? { properties } : {}) };
    });
}

/** The fields that differ; for a dataset not there yet, every field the file sets. */
export function diffDataset(want: StateDataset, have: PoolDatasetEntry | undefined): FieldChange[] {
  const changes: FieldChange[] = [];
  const haveComment = have ? commentOf(have) : null;
  if (want.comments !== undefined && (want.comments || null) !== haveComment) changes.push({ field: 'comments', from: haveComment, to: want.comments });
  for (const [key, value] of Object.entries(want.properties ?? {})) {
    const now = have ? current(have, key) : null;
    if (!have || !same(key, now, value)) changes.push({ field: key, from: now, to: value });
  }
  return changes;
}

function payload(want: StateDataset): Record<string, unknown> {
  const props = Object.fromEntries(Object.entries(want.properties ?? {}).map(([k, v]) => [k, SIZE_PROPERTIES.has(k) ? sizeBytes(v) : v]));
  return { ...props, ...(want.comments !== undefined ? { comments: want.comments } : {}) };
}

export async function createDataset(t: Transport, want: StateDataset): Promise<void> {
  await call(t, 'pool.dataset.create', [
    { name: want.name, ...payload(want), user_properties: [{ key: DATASET_MARK, value: want.name }] } as never,
  ]);
}

export async function updateDataset(t: Transport, want: StateDataset): Promise<void> {
  await call(t, 'pool.dataset.update', [want.name, payload(want) as never]);
}

export async function deleteDataset(t: Transport, name: string): Promise<void> {
  await call(t, 'pool.dataset.delete', [name, { recursive: false }]);
}
