import type { Database } from './sqlite.js';
import type { BigIntStats } from 'node:fs';
import { writeSetting } from './settings.js';
import { sql } from './statements.js';

/** The settings row that remembers which key the state's own `admin.key` file holds. */
const SETTING = 'admin_key_file';

/**
 * Which stored key `<state>/admin.key` is, without anything derived from its secret: the key's id
 * and stored (salted, slow) hash, and the file's identity when that was known to hold it. A key
 * reset changes the hash; any write, replacement or copy of the file changes its identity.
 */
export interface AdminKeyBinding {
  keyId: number;
  keyHash: string;
  file: string;
}

/**
 * A file's identity as the kernel keeps it: device, inode, size, and modification and change
 * times to the nanosecond. Writing or renaming anything onto the path changes the inode or the
 * change time, and no user can set the change time back (only the clock can move it).
 */
export function fileIdentity(st: BigIntStats): string {
  return [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(':');
}

export function readAdminKeyBinding(db: Database): AdminKeyBinding | null {
  const row = sql(db, 'SELECT value FROM settings WHERE key = ?').get(SETTING) as { value: string } | undefined;
  if (!row) return null;
  try {
    const b = JSON.parse(row.value) as Partial<AdminKeyBinding>;
    if (typeof b.keyId === 'number' && typeof b.keyHash === 'string' && typeof b.file === 'string')
      return { keyId: b.keyId, keyHash: b.keyHash, file: b.file };
  } catch {
    // A row that does not parse binds nothing: the file is then checked by its hash.
  }
  return null;
}

export function writeAdminKeyBinding(db: Database, binding: AdminKeyBinding): void {
  writeSetting(db, SETTING, JSON.stringify(binding));
}
