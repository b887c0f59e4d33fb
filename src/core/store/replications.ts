import type { ReplicationCreate } from '../contract/replication.js';
import { fromJsonColumn, toJsonColumn } from './json-column.js';
import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/**
 * A row of `replications`: a replication task as 25.10.1 stores it (`storage_replication`,
 * MW/plugins/replication.py:30-93), its fields as ReplicationCreate takes them in one JSON column
 * (the source keeps one column each), PUSH's `also_include_naming_schema` kept apart as create takes
 * it; `state`, zettarepl's last report on the task, or null before any. Its bound periodic snapshot
 * tasks are rows of `replication_snapshot_tasks` (`storage_replication_repl_periodic_snapshot_tasks`,
 * :96-101), which go with either side (ON DELETE CASCADE on both, as there).
 */
export type ReplicationData = Omit<ReplicationCreate, 'periodic_snapshot_tasks'>;

export interface ReplicationRecord {
  id: number;
  data: ReplicationData;
  /** Bound periodic snapshot task ids, in the order they were bound. */
  periodicSnapshotTasks: number[];
  state: Record<string, unknown> | null;
}

interface ReplicationRow {
  id: number;
  data: string;
  state: string | null;
}

export function listReplications(db: Database): ReplicationRecord[] {
  const links = sql(db, 'SELECT replication_id, task_id FROM replication_snapshot_tasks ORDER BY id').all() as {
    replication_id: number;
    task_id: number;
  }[];
  return (sql(db, 'SELECT * FROM replications ORDER BY id').all() as ReplicationRow[]).map((r) => ({
    id: r.id,
    data: fromJsonColumn(r.data, {} as ReplicationData),
    periodicSnapshotTasks: links.filter((l) => l.replication_id === r.id).map((l) => l.task_id),
    state: fromJsonColumn(r.state, null),
  }));
}

/** `_set_periodic_snapshot_tasks` (MW/plugins/replication.py:551-561): the links replaced. */
function setLinks(db: Database, id: number, tasks: readonly number[]): void {
  sql(db, 'DELETE FROM replication_snapshot_tasks WHERE replication_id = ?').run(id);
  const insert = sql(db, 'INSERT INTO replication_snapshot_tasks (replication_id, task_id) VALUES (?, ?)');
  for (const task of tasks) insert.run(id, task);
}

/** Inserts a task and its links; answers its id. */
export function insertReplication(db: Database, data: ReplicationData, tasks: readonly number[]): number {
  const id = Number(sql(db, 'INSERT INTO replications (data) VALUES (?)').run(toJsonColumn(data)).lastInsertRowid);
  setLinks(db, id, tasks);
  return id;
}

/** Writes a task's fields and links; its state is left as it is. */
export function updateReplication(db: Database, id: number, data: ReplicationData, tasks: readonly number[]): void {
  sql(db, 'UPDATE replications SET data = ? WHERE id = ?').run(toJsonColumn(data), id);
  setLinks(db, id, tasks);
}

/** Writes a task's fields alone, its links and state as they are (`datastore.update` of some columns). */
export function updateReplicationData(db: Database, id: number, data: ReplicationData): void {
  sql(db, 'UPDATE replications SET data = ? WHERE id = ?').run(toJsonColumn(data), id);
}

/** Stores zettarepl's last report on the task (`repl_state`, MW/plugins/zettarepl_/state.py:138-148). */
export function setReplicationState(db: Database, id: number, state: Record<string, unknown>): void {
  sql(db, 'UPDATE replications SET state = ? WHERE id = ?').run(toJsonColumn(state), id);
}

export function deleteReplications(db: Database, ids: readonly number[]): void {
  const del = sql(db, 'DELETE FROM replications WHERE id = ?');
  for (const id of ids) del.run(id);
}

/** `max_parallel_replication_tasks` of the one `replication_config` row (MW/plugins/replication_/config.py:65-69). */
export function replicationConfig(db: Database): { id: number; max_parallel_replication_tasks: number | null } {
  return sql(db, 'SELECT id, max_parallel_replication_tasks FROM replication_config WHERE id = 1').get() as {
    id: number;
    max_parallel_replication_tasks: number | null;
  };
}

export function setReplicationConfig(db: Database, maxParallel: number | null): void {
  sql(db, 'UPDATE replication_config SET max_parallel_replication_tasks = ? WHERE id = 1').run(maxParallel);
}
