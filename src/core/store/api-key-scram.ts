import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/**
 * A key's SCRAM-SHA-512 data as TrueNAS 26 stores it (MW/plugins/api_key.py:31-42 at stable/26):
 * PBKDF2 iterations and salt, StoredKey = H(ClientKey) and ServerKey, all base64. Both keys are
 * one-way derivations of the secret; ClientKey is never stored (26 returns it once, on create).
 */
export interface ApiKeyScramRecord {
  key_id: number;
  iterations: number;
  salt: string;
  stored_key: string;
  server_key: string;
}

export function findApiKeyScram(db: Database, keyId: number): ApiKeyScramRecord | undefined {
  return sql(db, 'SELECT * FROM api_key_scram WHERE key_id = ?').get(keyId) as ApiKeyScramRecord | undefined;
}

export function listApiKeyScram(db: Database): Map<number, ApiKeyScramRecord> {
  return new Map((sql(db, 'SELECT * FROM api_key_scram').all() as ApiKeyScramRecord[]).map((r) => [r.key_id, r]));
}

/** Written when a key is created or reset; replaces what the key had. */
export function writeApiKeyScram(db: Database, r: ApiKeyScramRecord): void {
  sql(
    db,
    'INSERT OR REPLACE INTO api_key_scram (key_id, iterations, salt, stored_key, server_key) VALUES (?, ?, ?, ?, ?)',
  ).run(r.key_id, r.iterations, r.salt, r.stored_key, r.server_key);
}

/** A reset in plain mode: the old SCRAM data no longer matches the secret. */
export function deleteApiKeyScram(db: Database, keyId: number): void {
  sql(db, 'DELETE FROM api_key_scram WHERE key_id = ?').run(keyId);
}
