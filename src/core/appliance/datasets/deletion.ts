import { ERRNO, rpcErrors } from '../../errors.js';
import type { Appliance } from '../appliance.js';

/*
 * Datasets whose delete is under way. A delete marks its datasets first, removes their files, and
 * only then their rows (methods/pool-dataset.ts): while the mark stands, nothing new may be written or made
 * inside them, so the removal cannot be outrun by an upload and the rows never go while files are
 * left. On a failed removal the mark goes and the rows stay: the dataset is still there, listed,
 * and can be deleted again.
 */
const marks = new WeakMap<Appliance, Set<string>>();

/** The dataset being deleted that holds the appliance path `path` (`/mnt/tank/a/b`), or null. */
export function deletionCovering(appliance: Appliance, path: string): string | null {
  for (const id of marks.get(appliance) ?? []) {
    if (path === `/mnt/${id}` || path.startsWith(`/mnt/${id}/`)) return id;
  }
  return null;
}

/** Refuses a write at `path` inside a dataset being deleted, with the reason (EBUSY). */
export function assertNotBeingDeleted(appliance: Appliance, path: string, what: string): void {
  const id = deletionCovering(appliance, path);
  if (id !== null) throw rpcErrors.call(ERRNO.EBUSY, `${what}: dataset ${id} is being deleted`);
}

/**
 * Marks `ids` (checked to exist, none covered by a delete already under way) as being deleted;
 * answers the function that lifts the marks.
 */
export function markDeleting(appliance: Appliance, ids: readonly string[]): () => void {
  let set = marks.get(appliance);
  if (!set) marks.set(appliance, (set = new Set()));
  ids.forEach((id) => set.add(id));
  return () => ids.forEach((id) => set.delete(id));
}
