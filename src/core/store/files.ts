import type { Database } from 'better-sqlite3';
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

export function ownersIn(db: Database, pool: string, paths: readonly string[]): Map<string, FileOwner> {
  const get = sql(db, 'SELECT uid, gid FROM file_owners WHERE pool = ? AND path = ?');
  const out = new Map<string, FileOwner>();
  for (const path of paths) {
    const row = get.get(pool, path) as FileOwner | undefined;
    if (row) out.set(path, row);
  }
  return out;
}

export function setOwner(db: Database, pool: string, path: string, owner: FileOwner): void {
  sql(db, 
    'INSERT INTO file_owners (pool, path, uid, gid) VALUES (?, ?, ?, ?) ON CONFLICT(pool, path) DO UPDATE SET uid = excluded.uid, gid = excluded.gid',
  ).run(pool, path, owner.uid, owner.gid);
}
