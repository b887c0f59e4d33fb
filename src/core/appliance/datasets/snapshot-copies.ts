import { join } from 'node:path';
import type { Appliance } from '../appliance.js';
import { snapshotsDir } from '../jobs/stray-snapshot-copies.js';

/** The copy of one snapshot (see `snapshotsDir`). */
export function snapshotCopyDir(appliance: Appliance, copy: string): string {
  return join(snapshotsDir(appliance.store.stateDir), copy);
}
