import { StorError } from '../../core/errors.js';

/** The fields of a `pool.dataset.query` entry the commands read. */
export interface DatasetEntry {
  id: string;
  pool: string;
  mountpoint: string;
  comments: { value: string | null };
  compression: { value: string | null };
  used: { parsed: number };
  available: { parsed: number };
}

/** Accepts `tank/a/b` or its mountpoint `/mnt/tank/a/b`. */
export function datasetId(ref: string): string {
  const id = ref.startsWith('/mnt/') ? ref.slice('/mnt/'.length) : ref;
  const trimmed = id.replace(/\/+$/, '');
  if (trimmed === '' || trimmed.startsWith('/')) {
    throw new StorError('usage', 'BAD_DATASET', `not a dataset name or mountpoint: ${JSON.stringify(ref)}`, { hint: 'use e.g. tank/projects or /mnt/tank/projects' });
  }
  return trimmed;
}
