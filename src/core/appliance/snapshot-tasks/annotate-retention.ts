import { lifetimeMs } from '../../lifetime.js';
import { listSnapshotTasks } from '../../store/snapshot-tasks.js';
import { listSnapshots } from '../../store/snapshots.js';
import { instantOfWallClock } from '../../wall-clock.js';
import type { Appliance } from '../appliance.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { taskSnapshots } from './retention.js';
import { removalDatePropertyOf, storedRemovalDate } from './stored-removal-dates.js';
import { assertZettareplParses, retentionTask } from './tasks.js';

// `pool.snapshot.query` with `extra.retention`: when each snapshot is to go and why, as
// `zettarepl.annotate_snapshots` works it out (MW/plugins/zettarepl_/snapshot_removal_date.py:112-172
// at TS-25.10.1; stable/26 :118-184 reads the same property from `user_properties`).

/** A snapshot's `retention`: the later of its tasks' dates, or its property's when that is later still. */
export type SnapshotRetention =
  | { datetime: { $date: number }; source: 'periodic_snapshot_task'; periodic_snapshot_task_id: number }
  | { datetime: { $date: number }; source: 'property' }
  | null;

/**
 * The retention of each snapshot named (`DATASET@NAME`). Every enabled task counts, whether zettarepl
 * accepted it or not (`pool.snapshottask.query [["enabled", "=", True]]`); one whose lifetime
 * zettarepl cannot read fails the query. A task's date is the name's time plus its lifetime, the
 * latest of them kept, an equal one by the task listed first. The wall clocks are read in the
 * appliance's zone (`.replace(tzinfo=tzlocal())`) and answered as instants.
 */
export function snapshotRetention(appliance: Appliance, ids: readonly string[]): Map<string, SnapshotRetention> {
  const { store } = appliance;
  const wanted = new Set(ids);
  const [tasks, snapshots] = store.read(() => [
    listSnapshotTasks(store.db).filter((t) => t.enabled),
    listSnapshots(store.db).filter((s) => wanted.has(s.id)),
  ]);
  for (const task of tasks) assertZettareplParses(task);
  const refs = snapshots.map((s) => ({ dataset: s.dataset, name: s.id.slice(s.id.indexOf('@') + 1) }));
  const byTask = new Map<string, { at: number; task: number }>();
  for (const task of tasks) {
    const owner = retentionTask(task);
    for (const s of taskSnapshots(owner, refs, parseTaskSnapshotName)) {
      const at = (parseTaskSnapshotName(owner.namingSchema, s.name) as Date).getTime() + lifetimeMs(owner.lifetime);
      const id = `${s.dataset}@${s.name}`;
      const known = byTask.get(id);
      if (known === undefined || known.at < at) byTask.set(id, { at, task: task.id });
    }
  }
  const property = removalDatePropertyOf(appliance);
  const instant = (wall: number) => ({ $date: instantOfWallClock(new Date(wall), APPLIANCE_TIMEZONE).getTime() });
  const answer = new Map<string, SnapshotRetention>();
  for (const s of snapshots) {
    const fromTask = byTask.get(s.id);
    const fromProperty = storedRemovalDate(s, property)?.getTime();
    if (fromTask !== undefined && (fromProperty === undefined || fromTask.at >= fromProperty)) {
      answer.set(s.id, {
        datetime: instant(fromTask.at),
        source: 'periodic_snapshot_task',
        periodic_snapshot_task_id: fromTask.task,
      });
    } else if (fromProperty !== undefined) {
      answer.set(s.id, { datetime: instant(fromProperty), source: 'property' });
    } else answer.set(s.id, null);
  }
  return answer;
}
