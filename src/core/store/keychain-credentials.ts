import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { fromJsonColumn, toJsonColumn } from './json-column.js';

/**
 * A row of `keychain_credentials`: a keychain credential as 25.10.1 stores it
 * (`system_keychaincredential`, MW/plugins/keychain.py:244-250): its attributes one JSON object,
 * private key included, as the source keeps them in one JSON column (encrypted there with the
 * database's secret key; here the state database itself is the owner's alone, 0600).
 */
export interface KeychainCredentialRecord {
  id: number;
  name: string;
  type: string;
  attributes: Record<string, unknown>;
}

interface KeychainCredentialRow {
  id: number;
  name: string;
  type: string;
  attributes: string;
}

const record = (r: KeychainCredentialRow): KeychainCredentialRecord => ({
  id: r.id,
  name: r.name,
  type: r.type,
  attributes: fromJsonColumn(r.attributes, {}),
});

export function listKeychainCredentials(db: Database): KeychainCredentialRecord[] {
  return (sql(db, 'SELECT * FROM keychain_credentials ORDER BY id').all() as KeychainCredentialRow[]).map(record);
}

/** Inserts a credential; answers its id. */
export function insertKeychainCredential(db: Database, c: Omit<KeychainCredentialRecord, 'id'>): number {
  const info = sql(db, 'INSERT INTO keychain_credentials (name, type, attributes) VALUES (?, ?, ?)').run(
    c.name,
    c.type,
    toJsonColumn(c.attributes),
  );
  return Number(info.lastInsertRowid);
}

/** Writes a credential's name, type and attributes. */
export function updateKeychainCredential(db: Database, c: KeychainCredentialRecord): void {
  sql(db, 'UPDATE keychain_credentials SET name = ?, type = ?, attributes = ? WHERE id = ?').run(
    c.name,
    c.type,
    toJsonColumn(c.attributes),
    c.id,
  );
}

export function deleteKeychainCredential(db: Database, id: number): void {
  sql(db, 'DELETE FROM keychain_credentials WHERE id = ?').run(id);
}
