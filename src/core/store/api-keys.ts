import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool } from './json-column.js';

export interface ApiKeyRecord {
  id: number;
  name: string;
  user_id: number;
  /** Salted slow hash of the secret part; the secret itself is never stored. */
  key_hash: string;
  created_at: number;
  expires_at: number | null;
  revoked: boolean;
  revoked_reason: string | null;
}

type ApiKeyRow = Omit<ApiKeyRecord, 'revoked'> & { revoked: number };

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return { ...row, revoked: bool(row.revoked) };
}

export function listApiKeys(db: Database): ApiKeyRecord[] {
  return (sql(db, 'SELECT * FROM api_keys ORDER BY id').all() as ApiKeyRow[]).map(toRecord);
}

export function findApiKey(db: Database, id: number): ApiKeyRecord | undefined {
  const row = sql(db, 'SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined;
  return row && toRecord(row);
}

/** Returns the new id, which becomes the `<id>-` prefix of the key string. */
export function insertApiKey(db: Database, k: Omit<ApiKeyRecord, 'id'>): number {
  const info = sql(
    db,
    `INSERT INTO api_keys (name, user_id, key_hash, created_at, expires_at, revoked, revoked_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(k.name, k.user_id, k.key_hash, k.created_at, k.expires_at, k.revoked ? 1 : 0, k.revoked_reason);
  return Number(info.lastInsertRowid);
}

export function revokeApiKey(db: Database, id: number, reason: string): void {
  sql(db, 'UPDATE api_keys SET revoked = 1, revoked_reason = ? WHERE id = ?').run(reason, id);
}

export function deleteApiKey(db: Database, id: number): void {
  sql(db, 'DELETE FROM api_keys WHERE id = ?').run(id);
}

/** Writes what `api_key.update` may change: name, expiry, the secret's hash and the revocation flag. */
export function updateApiKey(
  db: Database,
  id: number,
  k: Pick<ApiKeyRecord, 'name' | 'expires_at' | 'key_hash' | 'revoked'>,
): void {
  sql(db, 'UPDATE api_keys SET name = ?, expires_at = ?, key_hash = ?, revoked = ? WHERE id = ?').run(
    k.name,
    k.expires_at,
    k.key_hash,
    k.revoked ? 1 : 0,
    id,
  );
}
