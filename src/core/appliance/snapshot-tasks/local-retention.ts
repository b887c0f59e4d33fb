import { listReplications, type ReplicationRecord } from '../../store/replications.js';
import { listSnapshotTasks, type SnapshotTaskRecord } from '../../store/snapshot-tasks.js';
import { listHolds } from '../../store/snapshot-holds.js';
import { listSnapshots, type SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { sshCredentialLookupError } from '../replication-tasks/tasks.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { isChild, targetDatasetOf } from './dataset-tree.js';
import { periodicSnapshotRetention, type ReplicationNeed } from './retention.js';
import { destroySnapshots } from './run.js';
import { removalDatePropertyOf, storedRemovalDate } from './stored-removal-dates.js';
import { inZettarepl, retentionTask } from './tasks.js';

// Local retention after a tick that ran tasks (zettarepl/zettarepl.py:105-119 spawns it through
// _spawn_replication_tasks, :207-222, 310-322, and runs _run_local_retention, :355-436 at
// release/25.10.1): the enabled tasks' snapshots past their lifetime go, as retention.ts decides,
// less what a PUSH replication has still to send (`replicationNeeds`).
// Removal dates are the snapshots' properties (stored-removal-dates.ts: the middleware hands zettarepl its
// copy of them, MW/plugins/zettarepl.py:649, zettarepl/zettarepl.py:366-378).
// Not modelled yet: PULL replications' owners (:399-411).
// A name_regex replication's owner (schema None) keeps only names no schema parses, which no task owns
// (zettarepl compares parsed names with their schema, snapshot_owner.py:85-90), so it changes nothing here.

const nameOf = (s: SnapshotRecord) => s.id.slice(s.id.indexOf('@') + 1);

/**
 * Whether zettarepl has the replication among its tasks (MW/plugins/zettarepl.py:632-637): enabled,
 * its SSH credentials found (`_define_transport` raising holds it, :702-713), every bound periodic
 * snapshot task among the definition's (ReplicationTask.from_data raises otherwise,
 * zettarepl/replication/task/task.py:125-132).
 */
function replicationInZettarepl(appliance: Appliance, r: ReplicationRecord, tasks: ReadonlySet<number>): boolean {
  if (!r.data.enabled || !r.periodicSnapshotTasks.every((id) => tasks.has(id))) return false;
  if (r.data.transport === 'LOCAL') return true;
  return r.data.ssh_credentials !== null && sshCredentialLookupError(appliance, r.data.ssh_credentials) === null;
}

/**
 * The PUSH replications whose unsent snapshots local retention keeps (zettarepl/zettarepl.py:355-392):
 * those pending or running — the automatic ones without a schedule bound to a task that just ran,
 * which the tick spawned before its retention (:112-117, 194-222), and one whose state says RUNNING
 * — and every one with `hold_pending_snapshots` (:361-362). Each with what its target holds
 * (`replication_tasks_target_datasets_queries`, replication/task/snapshot_query.py:22-33): a LOCAL
 * target's snapshots read here; an SSH one the emulator cannot list, which zettarepl takes as
 * "remote has no snapshots" (replication/task/snapshot_owner.py:96-104).
 */
function replicationNeeds(
  appliance: Appliance,
  tasks: readonly SnapshotTaskRecord[],
  ranTasks: readonly number[],
  snapshots: readonly SnapshotRecord[],
): ReplicationNeed[] {
  const inDefinition = new Set(tasks.map((t) => t.id));
  const schemaOf = new Map(tasks.map((t) => [t.id, t.naming_schema]));
  const replications = appliance.store.read(() => listReplications(appliance.store.db));
  return replications
    .filter((r) => r.data.direction === 'PUSH' && replicationInZettarepl(appliance, r, inDefinition))
    .filter(
      (r) =>
        r.data.hold_pending_snapshots ||
        r.state?.state === 'RUNNING' ||
        (r.data.auto && r.data.schedule === null && r.periodicSnapshotTasks.some((id) => ranTasks.includes(id))),
    )
    .map((r) => {
      const scope = {
        sourceDatasets: r.data.source_datasets,
        targetDataset: r.data.target_dataset,
        recursive: r.data.recursive,
        exclude: r.data.exclude,
      };
      const targets = scope.sourceDatasets.map((source) => targetDatasetOf(scope, source));
      const onTarget = (dataset: string) =>
        targets.some((target) => (scope.recursive ? isChild(dataset, target) : dataset === target));
      return {
        ...scope,
        // replication_task_naming_schemas (zettarepl/replication/task/naming_schema.py:11-16); PUSH
        // stores also_include_naming_schema as its naming_schema (MW/plugins/replication.py:178-182).
        namingSchemas: [
          ...new Set([...r.periodicSnapshotTasks.map((id) => schemaOf.get(id) as string), ...r.data.naming_schema]),
        ],
        snapshotSchedules: [
          ...(r.data.restrict_schedule ? [r.data.restrict_schedule] : []),
          ...(r.data.only_matching_schedule && r.data.schedule ? [r.data.schedule] : []),
        ],
        targetSnapshots:
          r.data.transport === 'LOCAL'
            ? snapshots.filter((s) => onTarget(s.dataset)).map((s) => ({ dataset: s.dataset, name: nameOf(s) }))
            : [],
      };
    });
}

/**
 * Destroys what retention removes at `at` (the tick's instant), after the periodic snapshot tasks
 * `ranTasks` ran; the tasks handed to zettarepl are the enabled ones (MW/plugins/zettarepl.py:621) it accepts.
 */
export async function runLocalRetention(appliance: Appliance, at: number, ranTasks: readonly number[]): Promise<void> {
  const { store } = appliance;
  const [tasks, snapshots, holds] = store.read(() => [
    listSnapshotTasks(store.db).filter(inZettarepl),
    listSnapshots(store.db),
    listHolds(store.db),
  ]);
  if (tasks.length === 0) return;
  const property = removalDatePropertyOf(appliance);
  const doomed = (): readonly { dataset: string; name: string }[] => {
    try {
      return periodicSnapshotRetention({
        snapshots: snapshots.map((s) => ({
          dataset: s.dataset,
          name: nameOf(s),
          holds: [...(holds.get(s.id)?.keys() ?? [])],
          removalDate: storedRemovalDate(s, property),
        })),
        tasks: tasks.map(retentionTask),
        replications: replicationNeeds(appliance, tasks, ranTasks, snapshots),
        now: new Date(at),
        timezone: APPLIANCE_TIMEZONE,
        parse: parseTaskSnapshotName,
      });
    } catch {
      // zettarepl runs retention in its own thread and logs what it raises ("Unhandled exception
      // while running retention"), destroying nothing (zettarepl/zettarepl.py:324-334): a schedule
      // croniter refuses (a minute of "" the middleware stores, see schedule.ts) fails no run and no tick.
      return [];
    }
  };
  const ids = new Set(doomed().map((s) => `${s.dataset}@${s.name}`));
  const byPool = new Map<string, typeof snapshots>();
  for (const s of snapshots) if (ids.has(s.id)) byPool.set(s.pool, [...(byPool.get(s.pool) ?? []), s]);
  for (const [pool, list] of byPool) await destroySnapshots(appliance, list, pool);
}
