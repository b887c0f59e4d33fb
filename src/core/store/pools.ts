import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/** A row of `pools`: the emulator's pools, as 25.10.1's `storage_volume` holds id and name (MW/plugins/pool_/pool.py:35-40). */
export interface PoolRecord {
  id: number;
  name: string;
}

export function listPoolRecords(db: Database): PoolRecord[] {
  return sql(db, 'SELECT id, name FROM pools ORDER BY id').all() as PoolRecord[];
}
