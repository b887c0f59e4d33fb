import type { DatasetEntry } from '../../core/contract/results.js';
import { StorError } from '../../core/errors.js';

/** A dataset's comment: 25.10.x keeps it in `user_properties.comments`, present only when set. */
export function commentOf(d: DatasetEntry): string | null {
  return d.user_properties?.comments?.value || null;
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
