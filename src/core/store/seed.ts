import type { Database } from './sqlite.js';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileIdentity, writeAdminKeyBinding } from './admin-key-binding.js';
import { insertApiKey } from './api-keys.js';
import { addBuiltinAccounts } from './builtin-accounts.js';
import { insertGroup, type NewGroup } from './groups.js';
import { insertPrivilege } from './privileges.js';
import { generateKeySecret, hashSecretForSeed, unknownSecretHash } from './secrets.js';
import { readSettings, writeSetting } from './settings.js';
import { insertUser, type NewUser } from './users.js';

export const ADMIN_KEY_FILE = 'admin.key';

/** uid of truenas_admin (`ADMIN_UID`, MW/plugins/account_/constants.py). */
export const ADMIN_UID = 950;

/**
 * The well-known ids of a fresh 25.10.1 install (docs/ENVIRONMENT.md "Where state lives"): MW/plugins/account_/constants.py:1-3,
 * MW/alembic/versions/22.12/2022-08-17_13-37_privilege.py:41-49,
 * MW/alembic/versions/24.04/2024-01-15_20-10_builtin_roles_groups.py:24-38.
 */
export const GID = {
  builtin_administrators: 544,
  builtin_users: 545,
  builtin_guests: 546,
  truenas_admin: 950,
  truenas_readonly_administrators: 951,
  truenas_sharing_administrators: 952,
} as const;

const group = (name: keyof typeof GID, builtin = true): NewGroup => ({
  gid: GID[name],
  name,
  builtin,
  smb: false,
  sudo_commands: [],
  sudo_commands_nopasswd: [],
  userns_idmap: null,
});

const baseUser = (
  fields: Pick<NewUser, 'uid' | 'username' | 'full_name' | 'home' | 'group_id' | 'groups'> &
    Partial<Pick<NewUser, 'builtin'>>,
): NewUser => ({
  shell: '/usr/bin/zsh',
  builtin: true,
  smb: false,
  password_disabled: true,
  password_hash: null,
  locked: false,
  email: null,
  sshpubkey: null,
  ssh_password_enabled: false,
  sudo_commands: [],
  sudo_commands_nopasswd: [],
  userns_idmap: null,
  last_password_change: null,
  ...fields,
});

/** truenas_admin's password fields on a fresh state (and on older states, migration 7). */
export const SEEDED_ADMIN_PASSWORD = () => ({ password_disabled: false, password_hash: unknownSecretHash() });

/**
 * Seeds a fresh appliance exactly as docs/ENVIRONMENT.md "Where state lives" lists, once. Runs inside the
 * store's opening transaction, so of several processes starting on an empty directory exactly one seeds.
 */
export function seedFreshAppliance(db: Database, stateDir: string): void {
  if (readSettings(db).seeded_at !== undefined) return;

  const gids = new Map<number, number>();
  for (const name of Object.keys(GID) as (keyof typeof GID)[]) {
    gids.set(GID[name], insertGroup(db, group(name, name !== 'truenas_admin')));
  }
  const admins = gids.get(GID.builtin_administrators)!;
  insertUser(
    db,
    baseUser({ uid: 0, username: 'root', full_name: 'root', home: '/root', group_id: admins, groups: [] }),
  );
  const adminId = insertUser(
    db,
    baseUser({
      uid: ADMIN_UID,
      username: 'truenas_admin',
      full_name: 'Local Administrator',
      home: '/home/truenas_admin',
      group_id: gids.get(GID.truenas_admin)!,
      groups: [admins],
      // Not built-in on the appliance either, only immutable (truenas-set-authentication-method.py:48).
      builtin: false,
      // An install sets its password, which the emulator cannot know: a hash of none. So, as on a
      // real appliance, Local Administrator has a password-enabled grantee, and the last-admin
      // guard (MW/plugins/account_/privilege.py:309-320) refuses only what would leave none.
      ...SEEDED_ADMIN_PASSWORD(),
    }),
  );

  insertPrivilege(db, {
    builtin_name: 'LOCAL_ADMINISTRATOR',
    name: 'Local Administrator',
    local_groups: [GID.builtin_administrators],
    ds_groups: [],
    roles: ['FULL_ADMIN'],
    web_shell: true,
  });
  insertPrivilege(db, {
    builtin_name: 'READONLY_ADMINISTRATOR',
    name: 'Read-Only Administrator',
    local_groups: [GID.truenas_readonly_administrators],
    ds_groups: [],
    roles: ['READONLY_ADMIN'],
    web_shell: false,
  });
  insertPrivilege(db, {
    builtin_name: 'SHARING_ADMINISTRATOR',
    name: 'Sharing Administrator',
    local_groups: [GID.truenas_sharing_administrators],
    ds_groups: [],
    roles: ['SHARING_ADMIN'],
    web_shell: false,
  });

  // After stor's own rows, so their ids stay what earlier seeds gave them.
  addBuiltinAccounts(db);

  db.prepare('INSERT INTO pools (name) VALUES (?)').run('tank');
  db.prepare('INSERT OR IGNORE INTO datasets (id, pool, created_at) VALUES (?, ?, ?)').run('tank', 'tank', Date.now());
  mkdirSync(join(stateDir, 'mnt', 'tank'), { recursive: true, mode: 0o755 });

  const secret = generateKeySecret();
  const keyHash = hashSecretForSeed(secret);
  const keyId = insertApiKey(db, {
    name: 'stor-embedded-admin',
    user_id: adminId,
    key_hash: keyHash,
    created_at: Date.now(),
    expires_at: null,
    revoked: false,
    revoked_reason: null,
  });
  const file = writeAdminKey(stateDir, `${keyId}-${secret}`);
  // The embedded appliance then knows the file as its own key without hashing it again (appliance/session/admin-key-file.ts).
  writeAdminKeyBinding(db, { keyId, keyHash, file });
  writeSetting(db, 'seeded_at', new Date().toISOString());
}

/**
 * Written before the seed commits and renamed into place, so the file is whole or absent. Returns
 * the identity of the file now in place (after the rename, which moves its change time).
 */
function writeAdminKey(stateDir: string, key: string): string {
  const path = join(stateDir, ADMIN_KEY_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  // A new file, never a write through whatever (a link) is left at the temporary name.
  rmSync(tmp, { force: true });
  writeFileSync(tmp, `${key}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, path);
  return fileIdentity(statSync(path, { bigint: true }));
}
