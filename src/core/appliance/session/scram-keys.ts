import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { scramAuthData, scramAuthDataSync, type ScramAuthData } from '../../net/scram.js';
import { fileIdentity, readAdminKeyBinding } from '../../store/admin-key-binding.js';
import { findApiKeyScram, writeApiKeyScram } from '../../store/api-key-scram.js';
import { findApiKey } from '../../store/api-keys.js';
import { ADMIN_KEY_FILE } from '../../store/seed.js';
import type { Store } from '../../store/store.js';
import { parseApiKey } from './api-key-string.js';

/**
 * SCRAM data for a new or reset key under `keyLogin: scram`: `generate_api_key_auth_data` of the
 * secret part, 500,000 PBKDF2 rounds and a fresh 16-byte salt (MW/plugins/api_key.py:206-207,
 * MW/utils/crypto.py:90-94 at stable/26).
 */
export const scramDataFor = (secret: string): Promise<ScramAuthData> => scramAuthData(secret);

/**
 * 26's upgrade converts every key to SCRAM data (MW/alembic/versions/26.0/2026-02-06_18-18_convert-api-keys.py),
 * from the PBKDF2 hash 25.10 kept. stor keeps scrypt hashes, which cannot be converted, so a key
 * made before `keyLogin: scram` gets SCRAM data only when created or reset again — except the
 * state's own administrator key, whose secret is in `<state>/admin.key`: it is converted here, as
 * the state opens, when the file is still the one the seed (or a checked login) bound to the key.
 */
export function convertOwnKey(store: Store): void {
  const path = join(store.stateDir, ADMIN_KEY_FILE);
  let text: string;
  let identity: string;
  try {
    identity = fileIdentity(statSync(path, { bigint: true }));
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return;
  }
  const parsed = parseApiKey(text);
  if (!parsed) return;
  store.write(() => {
    const binding = readAdminKeyBinding(store.db);
    const key = findApiKey(store.db, parsed.id);
    if (!binding || !key || binding.keyId !== key.id || binding.keyHash !== key.key_hash || binding.file !== identity)
      return;
    if (findApiKeyScram(store.db, key.id)) return;
    const data = scramAuthDataSync(parsed.secret);
    writeApiKeyScram(store.db, {
      key_id: key.id,
      iterations: data.iterations,
      salt: data.salt,
      stored_key: data.stored_key,
      server_key: data.server_key,
    });
  });
}
