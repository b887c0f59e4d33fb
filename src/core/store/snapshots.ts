import type { Database } from './sqlite.js';
import { fromJsonColumn, toJsonColumn } from './json-column.js';
import { sql } from './statements.js';

/** A recorded file owner of a snapshot: path relative to the pool root, uid, gid. */
export type SnapshotOwner = [path: string, uid: number, gid: number];

export interface SnapshotRecord {
  /** Order of creation, shown as `createtxg`. */
  txg: number;
  /** `DATASET@NAME`. */
  id: string;
  dataset: string;
  pool: string;
  /** The directory under `<state>/snapshots` that holds the copy of the dataset's files. */
  copy: string;
  referenced: number;
  guid: string;
  user_properties: Record<string, string>;
  /** The dataset's recorded file owners when the snapshot was taken. */
  owners: SnapshotOwner[];
  created_at: number;
}

interface SnapshotRow extends Omit<SnapshotRecord, 'user_properties' | 'owners'> {
  user_properties: string;
  owners: string;
}

const fromRow = (r: SnapshotRow): SnapshotRecord => ({
  ...r,
  user_properties: fromJsonColumn(r.user_properties, {}),
  owners: fromJsonColumn(r.owners, []),
});

/** Every snapshot, oldest first. */
export function listSnapshots(db: Database): SnapshotRecord[] {
  return (sql(db, 'SELECT * FROM snapshots ORDER BY txg').all() as SnapshotRow[]).map(fromRow);
}

/** The row a receive checks and destroys by: no owners or properties parsed. */
export type SnapshotKey = Pick<SnapshotRecord, 'txg' | 'id' | 'copy'>;

/** One snapshot's key by `DATASET@NAME`, through the id's unique index. */
export function snapshotKey(db: Database, id: string): SnapshotKey | undefined {
  return sql(db, 'SELECT txg, id, copy FROM snapshots WHERE id = ?').get(id) as SnapshotKey | undefined;
}

/** The snapshots of one dataset (not its children) taken after `txg`, oldest first, by the dataset's index. */
export function snapshotKeysAfter(db: Database, dataset: string, txg: number): SnapshotKey[] {
  return sql(db, 'SELECT txg, id, copy FROM snapshots WHERE dataset = ? AND txg > ? ORDER BY txg').all(
    dataset,
    txg,
  ) as SnapshotKey[];
}

export function insertSnapshot(db: Database, s: Omit<SnapshotRecord, 'txg'>): void {
  sql(
    db,
    'INSERT INTO snapshots (id, dataset, pool, copy, referenced, guid, user_properties, owners, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    s.id,
    s.dataset,
    s.pool,
    s.copy,
    s.referenced,
    s.guid,
    toJsonColumn(s.user_properties),
    toJsonColumn(s.owners),
    s.created_at,
  );
}

/** Sets one user property of one snapshot (`zfs set NAME=VALUE DATASET@SNAP`); false when it is gone. */
export function setSnapshotUserProperty(db: Database, id: string, name: string, value: string): boolean {
  const row = sql(db, 'SELECT user_properties FROM snapshots WHERE id = ?').get(id) as
    Pick<SnapshotRow, 'user_properties'> | undefined;
  if (!row) return false;
  const properties = { ...fromJsonColumn<Record<string, string>>(row.user_properties, {}), [name]: value };
  sql(db, 'UPDATE snapshots SET user_properties = ? WHERE id = ?').run(toJsonColumn(properties), id);
  return true;
}

export function deleteSnapshots(db: Database, ids: readonly string[]): void {
  const del = sql(db, 'DELETE FROM snapshots WHERE id = ?');
  for (const id of ids) del.run(id);
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The recorded owners of the files of a dataset mounted at `rel` below its pool root ('' for the
 * root dataset), leaving out the trees of its child datasets (`childRels`).
 */
export function datasetOwners(db: Database, pool: string, rel: string, childRels: readonly string[]): SnapshotOwner[] {
  const rows = (
    rel === ''
      ? sql(db, 'SELECT path, uid, gid FROM file_owners WHERE pool = ?').all(pool)
      : sql(db, "SELECT path, uid, gid FROM file_owners WHERE pool = ? AND (path = ? OR path LIKE ? ESCAPE '\\')").all(
          pool,
          rel,
          `${escapeLike(rel)}/%`,
        )
  ) as { path: string; uid: number; gid: number }[];
  const inChild = (path: string) => childRels.some((c) => path === c || path.startsWith(`${c}/`));
  return rows.filter((r) => !inChild(r.path)).map((r) => [r.path, r.uid, r.gid]);
}

/** Puts back a dataset's owners as a snapshot recorded them (the owners of its child datasets stay). */
export function restoreOwners(
  db: Database,
  pool: string,
  rel: string,
  childRels: readonly string[],
  owners: readonly SnapshotOwner[],
): void {
  const del = sql(db, 'DELETE FROM file_owners WHERE pool = ? AND path = ?');
  for (const [path] of datasetOwners(db, pool, rel, childRels)) del.run(pool, path);
  const put = sql(db, 'INSERT INTO file_owners (pool, path, uid, gid) VALUES (?, ?, ?, ?)');
  for (const [path, uid, gid] of owners) put.run(pool, path, uid, gid);
}
