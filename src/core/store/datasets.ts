import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { fromJsonColumn, toJsonColumn } from './json-column.js';

export interface DatasetRecord {
  /** Full name, e.g. `tank/a/b`; the pool root's id is the pool name. */
  id: string;
  pool: string;
  /** Locally set properties only; the rest are inherited or default. Values as the API takes them. */
  properties: Record<string, string | number | null>;
  user_properties: Record<string, string>;
  created_at: number;
}

interface DatasetRow {
  id: string;
  pool: string;
  properties: string;
  user_properties: string;
  created_at: number;
}

const record = (r: DatasetRow): DatasetRecord => ({
  ...r,
  properties: fromJsonColumn(r.properties, {}),
  user_properties: fromJsonColumn(r.user_properties, {}),
});

export function listDatasets(db: Database): DatasetRecord[] {
  return (sql(db, 'SELECT * FROM datasets ORDER BY id').all() as DatasetRow[]).map(record);
}

/**
 * `id` and each of its ancestors that exists: all a create reads of the table, at a cost that does
 * not grow with the number of datasets.
 */
export function listDatasetLineage(db: Database, id: string): DatasetRecord[] {
  const found: DatasetRecord[] = [];
  for (
    let name: string | null = id;
    name !== null;
    name = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : null
  ) {
    const row = sql(db, 'SELECT * FROM datasets WHERE id = ?').get(name) as DatasetRow | undefined;
    if (row) found.push(record(row));
  }
  return found;
}

export function insertDataset(db: Database, d: DatasetRecord): void {
  sql(db, 'INSERT INTO datasets (id, pool, properties, user_properties, created_at) VALUES (?, ?, ?, ?, ?)').run(
    d.id,
    d.pool,
    toJsonColumn(d.properties),
    toJsonColumn(d.user_properties),
    d.created_at,
  );
}

export function updateDataset(db: Database, d: DatasetRecord): void {
  sql(db, 'UPDATE datasets SET properties = ?, user_properties = ? WHERE id = ?').run(
    toJsonColumn(d.properties),
    toJsonColumn(d.user_properties),
    d.id,
  );
}

/** Deletes datasets (and the owners of files below their mountpoints). */
export function deleteDatasets(db: Database, ids: readonly string[]): void {
  const del = sql(db, 'DELETE FROM datasets WHERE id = ?');
  const owners = sql(db, "DELETE FROM file_owners WHERE pool = ? AND (path = ? OR path LIKE ? ESCAPE '\\')");
  for (const id of ids) {
    del.run(id);
    const [pool, ...rest] = id.split('/');
    const rel = rest.join('/');
    if (rel) owners.run(pool, rel, `${rel.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`);
  }
}
