import type { PoolSnapshotTaskCreate, PoolSnapshotTaskEntry } from '../../contract/pool-snapshottask.js';
import { storedTime } from '../../contract/cron.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { listSnapshots } from '../../store/snapshots.js';
import { listSnapshotTasks, type SnapshotTaskRecord, type SnapshotTaskState } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { taskSnapshots as ownedSnapshots, type RetentionTask } from './retention.js';

// PeriodicSnapshotTaskService (MW/plugins/snapshot.py:40-356): its entries, its checks and which
// snapshots are a task's. No VMware integration exists in the emulator, so `vmware_sync` is false;
// the checks that read replication tasks (:202-211, :269-280) are in methods/pool-snapshottask.ts.

/** `verbose_name` of PeriodicSnapshotTaskService (MW/service/base.py:36): `PeriodicSnapshotTask 7 does not exist`. */
export const SNAPSHOT_TASK_VERBOSE = 'PeriodicSnapshotTask';

/** A task's fields as create takes them (the stored record without id and state). */
export type SnapshotTaskData = Omit<SnapshotTaskRecord, 'id' | 'state'>;

/**
 * `state` as `extend` answers it (MW/plugins/snapshot.py:71-76 over zettarepl.get_state,
 * MW/plugins/zettarepl_/state.py:54-73): PENDING before zettarepl reported anything on the task,
 * then its last report with `last_snapshot`; `datetime` as the API's JSON writes a datetime.
 */
export function taskState(state: SnapshotTaskState | null): unknown {
  if (!state) return { state: 'PENDING' };
  // A definition error is reported without `last_snapshot` (MW/plugins/zettarepl.py:899-907, zettarepl_/state.py:58-59).
  if (!('last_snapshot' in state))
    return { state: state.state, datetime: { $date: state.datetime }, error: state.error };
  const { datetime, last_snapshot, ...rest } = state;
  return { ...rest, datetime: { $date: datetime }, last_snapshot: last_snapshot ?? null };
}

/** PoolSnapshotTaskEntry (25.10.1's field order): the task's fields, id, state, vmware_sync. */
export function snapshotTaskEntry(t: SnapshotTaskRecord): PoolSnapshotTaskEntry {
  const { id, state, ...fields } = t;
  return {
    ...fields,
    exclude: [...fields.exclude],
    schedule: { ...fields.schedule },
    id,
    state: taskState(state),
    vmware_sync: false,
  };
}

export function snapshotTaskEntries(appliance: Appliance): PoolSnapshotTaskEntry[] {
  return appliance.store.read(() => listSnapshotTasks(appliance.store.db)).map(snapshotTaskEntry);
}

/** What the database keeps of a create's or merged update's data (`convert_schedule_to_db_format`). */
export function storedTaskData(data: PoolSnapshotTaskCreate): SnapshotTaskData {
  const { schedule, ...fields } = data;
  return {
    ...fields,
    schedule: { ...schedule, begin: storedTime(schedule.begin), end: storedTime(schedule.end) },
  };
}

/** Whether `zfs list` can open the dataset (a filesystem or volume of the appliance). */
export const datasetExists = (appliance: Appliance, dataset: string) =>
  appliance.datasets().some((d) => d.id === dataset);

/** `_validate` (MW/plugins/snapshot.py:334-356) under `schema` (periodic_snapshot_create / _update). */
export function taskErrors(appliance: Appliance, data: SnapshotTaskData, schema: string): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string) => errors.push([`${schema}.${field}`, message, ERRNO.EINVAL]);
  // pool.filesystem_choices (MW/plugins/pool_/info.py:88-125): every filesystem and volume of an
  // imported pool; the emulator has no system or application datasets to leave out.
  if (!datasetExists(appliance, data.dataset)) add('dataset', 'Dataset not found');
  if (!data.recursive && data.exclude.length > 0)
    add('exclude', 'Excluding datasets is not necessary for non-recursive periodic snapshot tasks');
  data.exclude.forEach((v, i) => {
    if (!v.startsWith(`${data.dataset}/`))
      add(`exclude.${i}`, 'Excluded dataset should be a child or other descendant of the selected dataset');
  });
  return errors;
}

export function checkTask(appliance: Appliance, data: SnapshotTaskData, schema: string): void {
  const errors = taskErrors(appliance, data, schema);
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

/**
 * Why zettarepl refuses the task's definition, or null. A negative lifetime reaches it as `PT-…S`
 * (MW/plugins/zettarepl.py:64-88), which isodate.parse_duration cannot parse: no field of its
 * regex takes a sign, and its alternative form reads the part before `T` as a date, '' here. The
 * ISO8601Error is a ValueError, so zettarepl keeps the task out of its definition as a
 * PeriodicSnapshotTaskDefinitionError (zettarepl/definition/definition.py:32-38, 81-85), and the
 * middleware makes it a sentence (MW/plugins/zettarepl.py:899-907).
 */
export function definitionError(task: Pick<SnapshotTaskRecord, 'id' | 'lifetime_value'>): string | null {
  if (task.lifetime_value >= 0) return null;
  return `When parsing periodic snapshot task task_${task.id}: ${LIFETIME_REFUSED}.`;
}

/** isodate's words for a negative lifetime's `PT-…S` (see definitionError). */
const LIFETIME_REFUSED = "Unrecognised ISO 8601 date format: ''";

/** A task zettarepl runs and keeps retention for: handed to it (enabled, MW/plugins/zettarepl.py:621) and accepted. */
export const inZettarepl = (task: SnapshotTaskRecord): boolean => task.enabled && definitionError(task) === null;

/**
 * The state the middleware reports for the task once `zettarepl.update_tasks` loaded the definition
 * at `at`: its definition error, or nothing kept when the task is disabled or was refused before
 * (notify_definition forgets the state of a task not in the definition, MW/plugins/zettarepl_/state.py:88-107).
 */
export function stateAfterDefinition(
  task: SnapshotTaskRecord,
  wasRefused: boolean,
  at: number,
): SnapshotTaskState | null | undefined {
  const error = task.enabled ? definitionError(task) : null;
  if (error !== null) return { state: 'ERROR', datetime: at, error };
  return !task.enabled || wasRefused ? null : undefined;
}

/** The stored task, or InstanceNotFound as get_instance raises it. */
export function storedTask(appliance: Appliance, id: number): SnapshotTaskRecord {
  const found = appliance.store.read(() => listSnapshotTasks(appliance.store.db)).find((t) => t.id === id);
  if (!found) throw rpcErrors.instanceNotFound(SNAPSHOT_TASK_VERBOSE, id);
  return found;
}

/** A task as zettarepl's definition gives it (MW/plugins/zettarepl.py:668-683). */
export function retentionTask(task: SnapshotTaskData): RetentionTask {
  return {
    dataset: task.dataset,
    recursive: task.recursive,
    exclude: task.exclude,
    namingSchema: task.naming_schema,
    schedule: task.schedule,
    lifetime: { value: task.lifetime_value, unit: task.lifetime_unit },
  };
}

/**
 * `zettarepl.periodic_snapshot_task_snapshots` (MW/plugins/zettarepl_/snapshot_removal_date.py:60-78):
 * the snapshots (`DATASET@NAME`) of the task's datasets whose names its naming schema parses to a
 * time its schedule runs at (PeriodicSnapshotTaskSnapshotOwner, zettarepl/snapshot/task/snapshot_owner.py:25-30).
 */
export function taskSnapshots(appliance: Appliance, task: SnapshotTaskData): Set<string> {
  const snapshots = appliance.store.read(() => listSnapshots(appliance.store.db));
  const refs = snapshots.map((s) => ({ dataset: s.dataset, name: s.id.slice(s.id.indexOf('@') + 1) }));
  return new Set(ownedSnapshots(retentionTask(task), refs, parseTaskSnapshotName).map((s) => `${s.dataset}@${s.name}`));
}

/**
 * `PeriodicSnapshotTask.from_data` (zettarepl/snapshot/task/task.py:34-41 at release/25.10.1): a negative
 * lifetime makes an ISO 8601 duration isodate refuses, and the middleware's call fails with that.
 */
export function assertZettareplParses(task: Pick<SnapshotTaskData, 'lifetime_value'>): void {
  if (task.lifetime_value < 0)
    throw rpcErrors.exception('ISO8601Error', LIFETIME_REFUSED, `ISO8601Error("${LIFETIME_REFUSED}")`);
}

/**
 * `taskSnapshots` as the middleware's call reaches them, through zettarepl's `zfs list` of the
 * task's dataset (zettarepl/snapshot/list.py:16-23): a dataset it cannot open is zfs's refusal as
 * ExecException on 25.10.1 (MW/plugins/zettarepl_/snapshot_removal_date.py:60-61 at TS-25.10.1;
 * zettarepl/transport/interface.py:64-72), CallError ENOENT on 26.0 (stable/26 :63-67).
 */
export function listedTaskSnapshots(appliance: Appliance, task: SnapshotTaskData, release26: boolean): Set<string> {
  if (datasetExists(appliance, task.dataset)) {
    // The task is parsed as zettarepl's next (snapshot_removal_date.py:62-64 at TS-25.10.1, stable/26 :68-70).
    assertZettareplParses(task);
    return taskSnapshots(appliance, task);
  }
  if (release26) throw rpcErrors.call(ERRNO.ENOENT, `Dataset '${task.dataset}' does not exist`);
  const text = `cannot open '${task.dataset}': dataset does not exist`;
  throw rpcErrors.exception('ExecException', text, `ExecException(1, "${text}\\n")`);
}

/** `{dataset: [name, …]}` of sorted `DATASET@NAME`s (MW/plugins/snapshot_/task_retention.py:32-35, 51-53). */
export function byDataset(ids: Iterable<string>): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const id of [...ids].sort()) {
    const at = id.indexOf('@');
    (result[id.slice(0, at)] ??= []).push(id.slice(at + 1));
  }
  return result;
}

/** Python's `==` of the two task dicts `update_will_change_retention_for` compares (task_retention.py:29): keys in any order. */
export function sameTask(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  const [ra, rb] = [a as Record<string, unknown>, b as Record<string, unknown>];
  return ka.length === kb.length && ka.every((k) => k in rb && sameTask(ra[k], rb[k]));
}
