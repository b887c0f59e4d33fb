import { openDatabase } from '../../src/core/store/sqlite.js';
import { join } from 'node:path';

/** SQLite's own verdict on a state directory's database ("ok" when sound), read without writing. */
export function integrity(stateDir: string): string {
  const db = openDatabase(join(stateDir, 'stor.db'), { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}
