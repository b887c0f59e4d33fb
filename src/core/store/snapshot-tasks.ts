import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

/**
 * A row of `snapshot_tasks`: a periodic snapshot task as 25.10.1 stores it (`storage_task`,
 * MW/plugins/snapshot.py:18-37), its schedule as one object (the source keeps the five cron fields
 * and begin/end in columns of their own) and `state`, zettarepl's last report on the task (the
 * source keeps it in `task_state` too, and in zettarepl's memory: MW/plugins/zettarepl_/state.py).
 */
export interface SnapshotTaskRecord {
  id: number;
  dataset: string;
  recursive: boolean;
  lifetime_value: number;
  lifetime_unit: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
  enabled: boolean;
  exclude: string[];
  naming_schema: string;
  allow_empty: boolean;
  schedule: { minute: string; hour: string; dom: string; month: string; dow: string; begin: string; end: string };
  /** `{state: FINISHED|ERROR, datetime: epoch ms, error?, last_snapshot?}`, or null before any run. */
  state: SnapshotTaskState | null;
}

export interface SnapshotTaskState {
  state: 'RUNNING' | 'FINISHED' | 'ERROR';
  /** When, in milliseconds since the epoch. */
  datetime: number;
  error?: string;
  /** `DATASET@NAME` of the last snapshot taken. */
  last_snapshot?: string | null;
}

interface SnapshotTaskRow {
  id: number;
  dataset: string;
  recursive: number;
  lifetime_value: number;
  lifetime_unit: string;
  enabled: number;
  exclude: string;
  naming_schema: string;
  allow_empty: number;
  schedule: string;
  state: string | null;
}

const record = (r: SnapshotTaskRow): SnapshotTaskRecord => ({
  id: r.id,
  dataset: r.dataset,
  recursive: bool(r.recursive),
  lifetime_value: r.lifetime_value,
  lifetime_unit: r.lifetime_unit as SnapshotTaskRecord['lifetime_unit'],
  enabled: bool(r.enabled),
  exclude: fromJsonColumn(r.exclude, []),
  naming_schema: r.naming_schema,
  allow_empty: bool(r.allow_empty),
  schedule: fromJsonColumn(r.schedule, {} as SnapshotTaskRecord['schedule']),
  state: fromJsonColumn(r.state, null),
});

export function listSnapshotTasks(db: Database): SnapshotTaskRecord[] {
  return (sql(db, 'SELECT * FROM snapshot_tasks ORDER BY id').all() as SnapshotTaskRow[]).map(record);
}

const columns = (t: Omit<SnapshotTaskRecord, 'id' | 'state'>) => [
  t.dataset,
  t.recursive ? 1 : 0,
  t.lifetime_value,
  t.lifetime_unit,
  t.enabled ? 1 : 0,
  toJsonColumn(t.exclude),
  t.naming_schema,
  t.allow_empty ? 1 : 0,
  toJsonColumn(t.schedule),
];

/** Inserts a task; answers its id. */
export function insertSnapshotTask(db: Database, t: Omit<SnapshotTaskRecord, 'id' | 'state'>): number {
  const info = sql(
    db,
    `INSERT INTO snapshot_tasks (dataset, recursive, lifetime_value, lifetime_unit, enabled, exclude, naming_schema,
       allow_empty, schedule) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...columns(t));
  return Number(info.lastInsertRowid);
}

/** Writes a task's fields; its state is left as it is. */
export function updateSnapshotTask(db: Database, t: Omit<SnapshotTaskRecord, 'state'>): void {
  sql(
    db,
    `UPDATE snapshot_tasks SET dataset = ?, recursive = ?, lifetime_value = ?, lifetime_unit = ?, enabled = ?,
       exclude = ?, naming_schema = ?, allow_empty = ?, schedule = ? WHERE id = ?`,
  ).run(...columns(t), t.id);
}

/** Records zettarepl's report on a task; null forgets it (the task reads PENDING again). */
export function setSnapshotTaskState(db: Database, id: number, state: SnapshotTaskState | null): void {
  sql(db, 'UPDATE snapshot_tasks SET state = ? WHERE id = ?').run(state === null ? null : toJsonColumn(state), id);
}

export function deleteSnapshotTasks(db: Database, ids: readonly number[]): void {
  const del = sql(db, 'DELETE FROM snapshot_tasks WHERE id = ?');
  for (const id of ids) del.run(id);
}
