import { listSnapshots, setSnapshotUserProperty, type SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { applianceHostId } from '../system/host-id.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { fixateRemovalDates, formatRemovalDate, parseRemovalDate, removalDateProperty } from './removal-date.js';
import { retentionTask, type SnapshotTaskData } from './tasks.js';

// Removal dates as the appliance keeps them: a user property on each snapshot, named by the host
// id (removal-date.ts). The middleware reads them all into memory when it starts and when a pool is
// imported, and keeps that copy up to date as it writes them (MW/plugins/zettarepl_/
// snapshot_removal_date.py:25-52, 106-110, 175-181 at TS-25.10.1); the emulator reads the
// properties themselves, which is that copy as a restart would load it: a property set some other
// way (`pool.snapshot.create` with `properties`) counts at once here, on a real appliance only
// after its next start.

/** `pool.snapshottask.removal_date_property` (MW/plugins/snapshot_/removal_date.py:9-12). */
export const removalDatePropertyOf = (appliance: Appliance): string => removalDateProperty(applianceHostId(appliance));

/** A snapshot's removal date, or undefined: none, or a value isodate cannot read (logged and skipped, snapshot_removal_date.py:43-47). */
export function storedRemovalDate(s: SnapshotRecord, property: string): Date | undefined {
  const value = s.user_properties[property];
  return value === undefined ? undefined : parseRemovalDate(value);
}

const nameOf = (s: SnapshotRecord) => s.id.slice(s.id.indexOf('@') + 1);

/**
 * `pool.snapshottask.fixate_removal_date` (MW/plugins/snapshot_/removal_date.py:14-20, a job, then
 * snapshot_removal_date.py:80-110): each of `changed`'s snapshots (`{dataset: [name, …]}`, what a
 * `*_will_change_retention_for` answered) is given the date `task`'s lifetime would have ended it,
 * unless it carries one as late already. A snapshot gone meanwhile is passed over, as the
 * middleware logs a failed `zfs set` and goes on. The middleware runs this as a job it does not
 * wait for; here it is done before the call answers.
 */
export function fixateStoredRemovalDates(
  appliance: Appliance,
  changed: Readonly<Record<string, readonly string[]>>,
  task: SnapshotTaskData,
): void {
  const property = removalDatePropertyOf(appliance);
  const wanted = new Set(Object.entries(changed).flatMap(([dataset, names]) => names.map((n) => `${dataset}@${n}`)));
  const { store } = appliance;
  store.write(() => {
    const snapshots = listSnapshots(store.db)
      .filter((s) => wanted.has(s.id))
      .map((s) => ({ dataset: s.dataset, name: nameOf(s), removalDate: storedRemovalDate(s, property) }));
    for (const change of fixateRemovalDates(retentionTask(task), snapshots, parseTaskSnapshotName))
      setSnapshotUserProperty(
        store.db,
        `${change.dataset}@${change.name}`,
        property,
        formatRemovalDate(change.removalDate),
      );
  });
}
