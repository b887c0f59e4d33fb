import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/**
 * Owners of files in the sandboxed tree. The emulator writes every file as the user running it,
 * so the appliance's notion of ownership (the uploader's uid and primary gid) is kept here.
 * `path` is relative to the pool root, `/`-separated.
 */
export interface FileOwner {
  uid: number;
  gid: number;
}

export function listPools(db: Database): string[] {
  return (sql(db, 'SELECT name FROM pools ORDER BY id').all() as { name: string }[]).map((r) => r.name);
}

/** Every recorded owner, keyed by `ownerKey(pool, path)`. */
export function listOwners(db: Database): Map<string, FileOwner> {
  const rows = sql(db, 'SELECT pool, path, uid, gid FROM file_owners').all() as (FileOwner & {
    pool: string;
    path: string;
  })[];
  return new Map(rows.map((r) => [ownerKey(r.pool, r.path), { uid: r.uid, gid: r.gid }]));
}

export function ownerKey(pool: string, path: string): string {
  return `${pool}\u0000${path}`;
}

export function setOwner(db: Database, pool: string, path: string, owner: FileOwner): void {
  sql(
    db,
    'INSERT INTO file_owners (pool, path, uid, gid) VALUES (?, ?, ?, ?) ON CONFLICT(pool, path) DO UPDATE SET uid = excluded.uid, gid = excluded.gid',
  ).run(pool, path, owner.uid, owner.gid);
}
