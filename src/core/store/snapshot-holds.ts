import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/** Holds on snapshots: snapshot id → tag → when it was placed (ms). */
export function listHolds(db: Database): Map<string, Map<string, number>> {
  const rows = sql(db, 'SELECT snapshot, tag, created_at FROM snapshot_holds ORDER BY snapshot, tag').all() as {
    snapshot: string;
    tag: string;
    created_at: number;
  }[];
  const holds = new Map<string, Map<string, number>>();
  for (const r of rows) {
    let tags = holds.get(r.snapshot);
    if (!tags) holds.set(r.snapshot, (tags = new Map()));
    tags.set(r.tag, r.created_at);
  }
  return holds;
}

/** Whether a snapshot has any hold: one look-up by the holds' key, not the whole table. */
export function isHeld(db: Database, snapshot: string): boolean {
  return sql(db, 'SELECT 1 FROM snapshot_holds WHERE snapshot = ? LIMIT 1').get(snapshot) !== undefined;
}

export function insertHold(db: Database, snapshot: string, tag: string, at: number): void {
  sql(db, 'INSERT INTO snapshot_holds (snapshot, tag, created_at) VALUES (?, ?, ?)').run(snapshot, tag, at);
}

export function deleteHold(db: Database, snapshot: string, tag: string): void {
  sql(db, 'DELETE FROM snapshot_holds WHERE snapshot = ? AND tag = ?').run(snapshot, tag);
}
