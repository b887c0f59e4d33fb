import type { PoolSnapshotEntry } from '../../contract/pool-snapshot.js';
import { lifetimeMs } from '../../lifetime.js';
import { listSnapshotTasks } from '../../store/snapshot-tasks.js';
import { instantOfWallClock } from '../../wall-clock.js';
import type { Appliance } from '../appliance.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { taskSnapshots } from './retention.js';
import { parseRemovalDate, removalDateIsAware } from './removal-date.js';
import { rpcErrors } from '../../errors.js';
import { removalDatePropertyOf } from './stored-removal-dates.js';
import { assertZettareplParses, retentionTask } from './tasks.js';

// `pool.snapshot.query` with `extra.retention`: when each snapshot is to go and why, as
// `zettarepl.annotate_snapshots` works it out (MW/plugins/zettarepl_/snapshot_removal_date.py:112-172
// at TS-25.10.1; stable/26 :118-184 reads the same property from `user_properties`).

/** A snapshot's `retention`: the later of its tasks' dates, or its property's when that is later still. */
export type SnapshotRetention =
  | { datetime: { $date: number }; source: 'periodic_snapshot_task'; periodic_snapshot_task_id: number }
  | { datetime: { $date: number }; source: 'property' }
  | null;

/** What the annotation reads of a query's entry: its name, and its properties for the removal date. */
export type AnnotatedSnapshot = Pick<PoolSnapshotEntry, 'id' | 'dataset' | 'snapshot_name' | 'properties'>;

/**
 * The retention of each of a query's snapshots, by id. Every enabled task counts, whether zettarepl
 * accepted it or not (`pool.snapshottask.query [["enabled", "=", True]]`); one whose lifetime
 * zettarepl cannot read fails the query. A task's date is the name's time plus its lifetime, the
 * latest of them kept, an equal one by the task listed first. The wall clocks are read in the
 * appliance's zone (`.replace(tzinfo=tzlocal())`) and answered as instants.
 */
export function snapshotRetention(
  appliance: Appliance,
  snapshots: readonly AnnotatedSnapshot[],
): Map<string, SnapshotRetention> {
  const { store } = appliance;
  const tasks = store.read(() => listSnapshotTasks(store.db).filter((t) => t.enabled));
  for (const task of tasks) assertZettareplParses(task);
  const refs = snapshots.map((s) => ({ dataset: s.dataset, name: s.snapshot_name }));
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
    // The entry's property, as 25.10.1 reads it (`snapshot["properties"][name]["value"]`, :145-147);
    // an entry listed without properties (py-libzfs's simple listing) fails there with a KeyError.
    if (s.properties === undefined) throw rpcErrors.exception('KeyError', "'properties'", "KeyError('properties')");
    const value = s.properties[property]?.value;
    const fromProperty = value === undefined ? undefined : parseRemovalDate(value)?.getTime();
    // A value with an offset is an aware datetime, the task's date a naive one: Python refuses to
    // compare them (`task_destroy_at < property_destroy_at`, :152-153), and the query fails.
    if (fromTask !== undefined && fromProperty !== undefined && removalDateIsAware(value!))
      throw rpcErrors.exception('TypeError', "can't compare offset-naive and offset-aware datetimes");
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
