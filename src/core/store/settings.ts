import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/** Key/value settings stored with the state; the appliance owns their meaning and defaults. */
export function readSettings(db: Database): Record<string, string> {
  const rows = sql(db, 'SELECT key, value FROM settings').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export function writeSetting(db: Database, key: string, value: string): void {
  sql(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}
