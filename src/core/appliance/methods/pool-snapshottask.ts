import {
  poolSnapshotTaskContract,
  type PoolSnapshotTaskChanges,
  type PoolSnapshotTaskEntry,
  type PoolSnapshotTaskUpdate,
} from '../../contract/pool-snapshottask.js';
import { poolSnapshotTaskContract26 } from '../../contract/v26_0_0/pool-snapshottask.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import {
  deleteSnapshotTasks,
  insertSnapshotTask,
  listSnapshotTasks,
  setSnapshotTaskState,
  updateSnapshotTask,
} from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { replicationsBoundTo } from '../replication-tasks/tasks.js';
import { implement } from '../method.js';
import { getInstance, query } from '../query/index.js';
import { runLocalRetention } from '../snapshot-tasks/local-retention.js';
import { runSnapshotTask } from '../snapshot-tasks/run.js';
import { dueTasks } from '../snapshot-tasks/scheduler.js';
import { fixateStoredRemovalDates } from '../snapshot-tasks/stored-removal-dates.js';
import {
  SNAPSHOT_TASK_VERBOSE,
  byDataset,
  checkTask,
  datasetExists,
  definitionError,
  inZettarepl,
  listedTaskSnapshots,
  taskErrors,
  sameTask,
  snapshotTaskEntries,
  snapshotTaskEntry,
  stateAfterDefinition,
  storedTask,
  storedTaskData,
  type SnapshotTaskData,
} from '../snapshot-tasks/tasks.js';

// The handlers of contract/pool-snapshottask.ts (and 26.0's entries, contract/v26_0_0/pool-snapshottask.ts),
// as PeriodicSnapshotTaskService answers them (MW/plugins/snapshot.py:40-356,
// MW/plugins/snapshot_/task_retention.py). Tasks are stored and run on request here; `stor serve`
// also runs them on their schedule (snapshot-tasks/scheduler.ts), each run followed by retention.

/** The entry's task fields, as `dict(old, **data)` lays new values over them. */
const taskData = (e: PoolSnapshotTaskEntry): SnapshotTaskData => {
  const { id: _id, state: _state, vmware_sync: _vmware, ...fields } = e;
  return fields;
};

/**
 * `update_will_change_retention_for` (task_retention.py:16-37): snapshots the old task has and the
 * new one has not, each listed as zettarepl lists them (`listedTaskSnapshots`); 26.0 answers `{}`
 * when the old task's dataset is gone (stable/26 task_retention.py:38-45).
 */
function updateWillChangeRetentionFor(
  appliance: Appliance,
  id: number,
  data: PoolSnapshotTaskChanges,
  release26: boolean,
) {
  const old = snapshotTaskEntry(storedTask(appliance, id));
  const updated = { ...old, ...data };
  if (sameTask(old, updated)) return {};
  if (release26 && !datasetExists(appliance, old.dataset)) return {};
  const before = listedTaskSnapshots(appliance, taskData(old), release26);
  const after = listedTaskSnapshots(appliance, taskData(updated), release26);
  return byDataset([...before].filter((s) => !after.has(s)));
}

/** `delete_will_change_retention_for` (task_retention.py:39-55): every snapshot of the task; 26.0's `{}` when its dataset is gone (stable/26 :69-76). */
function deleteWillChangeRetentionFor(appliance: Appliance, id: number, release26: boolean) {
  return retentionLeftBy(appliance, taskData(snapshotTaskEntry(storedTask(appliance, id))), release26);
}

/** What deleting `task` leaves to no task's retention (delete_will_change_retention_for of a task at hand). */
function retentionLeftBy(appliance: Appliance, task: SnapshotTaskData, release26: boolean) {
  if (release26 && !datasetExists(appliance, task.dataset)) return {};
  return byDataset(listedTaskSnapshots(appliance, task, release26));
}

/** do_create (MW/plugins/snapshot.py:86-147): validate, store; answers the new task's id. */
function createTask(appliance: Appliance, data: SnapshotTaskData): number {
  const { store } = appliance;
  return store.write(() => {
    checkTask(appliance, data, 'periodic_snapshot_create');
    const id = insertSnapshotTask(store.db, data);
    const state = stateAfterDefinition({ ...data, id, state: null }, false, appliance.now());
    if (state) setSnapshotTaskState(store.db, id, state);
    return id;
  });
}

/**
 * do_update (MW/plugins/snapshot.py:155-239): the stored task with `data` laid over it, validated
 * as a whole. With `fixate_removal_date` the snapshots the change leaves are computed (25.10.1
 * when it is true, :191, :220-224; 26.0 whenever it is given, stable/26 :174-180), and each is
 * given the removal date the old task would have ended it at (snapshot-tasks/stored-removal-dates.ts).
 */
function updateTask(appliance: Appliance, id: number, data: PoolSnapshotTaskUpdate, release26: boolean): number {
  const { store } = appliance;
  const { fixate_removal_date: fixate, ...changes } = data;
  const old = snapshotTaskEntry(storedTask(appliance, id));
  const merged = storedTaskData({ ...taskData(old), ...changes });
  return store.write(() => {
    if (!listSnapshotTasks(store.db).some((t) => t.id === id))
      throw rpcErrors.instanceNotFound(SNAPSHOT_TASK_VERBOSE, id);
    const errors = taskErrors(appliance, merged, 'periodic_snapshot_update');
    // MW/plugins/snapshot.py:202-211: the first enabled replication bound to the task it disables.
    const bound = merged.enabled ? undefined : replicationsBoundTo(appliance, id).find((r) => r.enabled);
    if (bound)
      errors.push([
        'periodic_snapshot_update.enabled',
        `You can't disable this periodic snapshot task because it is bound to enabled replication task ${bound.id}`,
        ERRNO.EINVAL,
      ]);
    if (errors.length > 0) throw rpcErrors.validation(errors);
    // After the checks, before the row changes (:213-224; stable/26 :171-183); the dates are
    // fixed by the old task's schema and lifetime once the row has changed (:234-235; stable/26 :195-196).
    const changed = (release26 ? fixate !== undefined : fixate === true)
      ? updateWillChangeRetentionFor(appliance, id, changes, release26)
      : {};
    updateSnapshotTask(store.db, { ...merged, id });
    if (Object.keys(changed).length > 0) fixateStoredRemovalDates(appliance, changed, taskData(old));
    // zettarepl.update_tasks hands zettarepl the enabled tasks only, and notify_definition forgets
    // the state of every task it was not handed (MW/plugins/zettarepl_/state.py:88-107).
    const wasRefused = old.enabled && definitionError(old) !== null;
    const state = stateAfterDefinition({ ...merged, id, state: null }, wasRefused, appliance.now());
    if (state !== undefined) setSnapshotTaskState(store.db, id, state);
    return id;
  });
}

/** do_delete (MW/plugins/snapshot.py:247-299); 26.0 looks the task up first (stable/26 :215-216). */
function deleteTask(appliance: Appliance, id: number, fixate: boolean, release26: boolean): true {
  const { store } = appliance;
  if (release26) storedTask(appliance, id);
  // MW/plugins/snapshot.py:269-280: an enabled PUSH replication with no other source of snapshots.
  const broken = replicationsBoundTo(appliance, id).find(
    (r) =>
      r.direction === 'PUSH' &&
      r.also_include_naming_schema.length === 0 &&
      r.enabled &&
      r.periodic_snapshot_tasks.length === 1,
  );
  if (broken)
    throw rpcErrors.call(
      ERRNO.EFAULT,
      `You are deleting the last periodic snapshot task bound to enabled replication task '${broken.name}' which will break it. Please, disable that replication task first.`,
    );
  if (fixate) {
    // The dates are fixed before the row goes (:282-292; stable/26 :234-241).
    const task = taskData(snapshotTaskEntry(storedTask(appliance, id)));
    const changed = retentionLeftBy(appliance, task, release26);
    if (Object.keys(changed).length > 0) fixateStoredRemovalDates(appliance, changed, task);
  }
  store.write(() => deleteSnapshotTasks(store.db, [id]));
  return true;
}

/**
 * run (MW/plugins/snapshot.py:321-332): a task that is not enabled is refused. zettarepl runs it
 * by interrupting its scheduler (MW/plugins/zettarepl.py:250-256, zettarepl/scheduler/scheduler.py:26-48),
 * so local retention follows it as it follows a tick (zettarepl/zettarepl.py:105-119).
 */
async function runTask(appliance: Appliance, id: number): Promise<null> {
  const task = storedTask(appliance, id);
  if (!task.enabled) throw rpcErrors.call(ERRNO.EFAULT, 'Task is not enabled');
  // A task zettarepl refused is not among its tasks: the run is only logged (MW/plugins/zettarepl.py:250-259).
  if (!inZettarepl(task)) return null;
  const at = appliance.now();
  // The run is an interrupt of zettarepl's scheduler, which asks every task at that tick too: a
  // schedule croniter refuses loses the tick and the run with it (scheduler.ts dueTasks).
  if (dueTasks(appliance, at) === undefined) return null;
  await runSnapshotTask(appliance, task, at);
  await runLocalRetention(appliance, at, [task.id]);
  return null;
}

const c = poolSnapshotTaskContract;

export const poolSnapshotTaskMethods = [
  implement(c['pool.snapshottask.query'], ({ appliance }, filters, options) =>
    query(snapshotTaskEntries(appliance), filters, options),
  ),
  implement(c['pool.snapshottask.get_instance'], ({ appliance }, id, options) =>
    getInstance(snapshotTaskEntries(appliance), id, options, SNAPSHOT_TASK_VERBOSE),
  ),
  // `return await self.get_instance(id)` (MW/plugins/snapshot.py:147, 239).
  implement(c['pool.snapshottask.create'], ({ appliance }, data) =>
    snapshotTaskEntry(storedTask(appliance, createTask(appliance, storedTaskData(data)))),
  ),
  implement(c['pool.snapshottask.update'], ({ appliance }, id, data) =>
    snapshotTaskEntry(storedTask(appliance, updateTask(appliance, id, data, false))),
  ),
  // do_delete (MW/plugins/snapshot.py:247-299): the row; with `fixate_removal_date` the task's
  // snapshots keep its removal dates first. 25.10.1 looks the task up only for the audit
  // (:264-267), so an unknown id answers True from `datastore.delete`.
  implement(c['pool.snapshottask.delete'], ({ appliance }, id, options) =>
    deleteTask(appliance, id, options.fixate_removal_date, false),
  ),
  implement(c['pool.snapshottask.max_count'], () => 512),
  implement(c['pool.snapshottask.max_total_count'], () => 10000),
  implement(c['pool.snapshottask.run'], ({ appliance }, id) => runTask(appliance, id)),
  implement(c['pool.snapshottask.update_will_change_retention_for'], ({ appliance }, id, data) =>
    updateWillChangeRetentionFor(appliance, id, data, false),
  ),
  implement(c['pool.snapshottask.delete_will_change_retention_for'], ({ appliance }, id) =>
    deleteWillChangeRetentionFor(appliance, id, false),
  ),
];

const c26 = poolSnapshotTaskContract26;

/** 26.0's entry order: id first, vmware_sync then state last (stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57). */
const entry26 = (e: PoolSnapshotTaskEntry) => {
  const { id, state, vmware_sync, ...fields } = e;
  return { id, ...fields, vmware_sync, state };
};

/**
 * 26.0's entries: the same handlers with the entry in its new order; delete looks the task up
 * first (`get_instance`, stable/26 MW/plugins/snapshot.py:215-216), so an unknown id is refused.
 */
export const poolSnapshotTaskMethods26 = [
  implement(c26['pool.snapshottask.query'], ({ appliance }, filters, options) =>
    query(snapshotTaskEntries(appliance).map(entry26), filters, options),
  ),
  implement(c26['pool.snapshottask.get_instance'], ({ appliance }, id, options) =>
    getInstance(snapshotTaskEntries(appliance).map(entry26), id, options, SNAPSHOT_TASK_VERBOSE),
  ),
  implement(c26['pool.snapshottask.create'], ({ appliance }, data) =>
    entry26(snapshotTaskEntry(storedTask(appliance, createTask(appliance, storedTaskData(data))))),
  ),
  implement(c26['pool.snapshottask.update'], ({ appliance }, id, data) =>
    entry26(snapshotTaskEntry(storedTask(appliance, updateTask(appliance, id, data, true)))),
  ),
  implement(c26['pool.snapshottask.delete'], ({ appliance }, id, options) =>
    deleteTask(appliance, id, options.fixate_removal_date, true),
  ),
  implement(c26['pool.snapshottask.update_will_change_retention_for'], ({ appliance }, id, data) =>
    updateWillChangeRetentionFor(appliance, id, data, true),
  ),
  implement(c26['pool.snapshottask.delete_will_change_retention_for'], ({ appliance }, id) =>
    deleteWillChangeRetentionFor(appliance, id, true),
  ),
];
