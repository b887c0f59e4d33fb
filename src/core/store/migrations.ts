import type { Database } from './sqlite.js';
import { addBuiltinAccounts } from './builtin-accounts.js';
import { unknownSecretHash } from './secrets.js';
import { readSettings } from './settings.js';
import { createServices } from './services.js';

/**
 * Versioned schema migrations. `PRAGMA user_version` records how many have run; each runs once,
 * inside the same IMMEDIATE transaction that checks the version, so concurrent first starts of
 * several processes serialise instead of racing. Append new migrations; never edit a shipped one.
 */
export interface Migration {
  version: number;
  description: string;
  up: (db: Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, privileges, API keys, pools, settings',
    up: (db) => {
      db.exec(`
        CREATE TABLE settings (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
        CREATE TABLE groups (
          id                     INTEGER PRIMARY KEY AUTOINCREMENT,
          gid                    INTEGER NOT NULL UNIQUE,
          name                   TEXT NOT NULL UNIQUE,
          builtin                INTEGER NOT NULL DEFAULT 0,
          smb                    INTEGER NOT NULL DEFAULT 0,
          sudo_commands          TEXT NOT NULL DEFAULT '[]',
          sudo_commands_nopasswd TEXT NOT NULL DEFAULT '[]',
          userns_idmap           TEXT
        );
        CREATE TABLE users (
          id                     INTEGER PRIMARY KEY AUTOINCREMENT,
          uid                    INTEGER NOT NULL UNIQUE,
          username               TEXT NOT NULL UNIQUE,
          full_name              TEXT NOT NULL,
          home                   TEXT NOT NULL,
          shell                  TEXT NOT NULL,
          group_id               INTEGER NOT NULL REFERENCES groups(id),
          builtin                INTEGER NOT NULL DEFAULT 0,
          smb                    INTEGER NOT NULL DEFAULT 0,
          password_disabled      INTEGER NOT NULL DEFAULT 0,
          password_hash          TEXT,
          locked                 INTEGER NOT NULL DEFAULT 0,
          email                  TEXT,
          sshpubkey              TEXT,
          ssh_password_enabled   INTEGER NOT NULL DEFAULT 0,
          sudo_commands          TEXT NOT NULL DEFAULT '[]',
          sudo_commands_nopasswd TEXT NOT NULL DEFAULT '[]',
          userns_idmap           TEXT,
          last_password_change   INTEGER
        );
        CREATE TABLE user_groups (
          user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
          PRIMARY KEY (user_id, group_id)
        );
        CREATE TABLE privileges (
          id           INTEGER PRIMARY KEY AUTOINCREMENT,
          builtin_name TEXT UNIQUE,
          name         TEXT NOT NULL UNIQUE,
          local_groups TEXT NOT NULL DEFAULT '[]',
          ds_groups    TEXT NOT NULL DEFAULT '[]',
          roles        TEXT NOT NULL DEFAULT '[]',
          web_shell    INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE api_keys (
          id             INTEGER PRIMARY KEY AUTOINCREMENT,
          name           TEXT NOT NULL UNIQUE,
          user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          key_hash       TEXT NOT NULL,
          created_at     INTEGER NOT NULL,
          expires_at     INTEGER,
          revoked        INTEGER NOT NULL DEFAULT 0,
          revoked_reason TEXT
        );
        CREATE TABLE pools (
          id   INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL UNIQUE
        );
      `);
    },
  },
  {
    version: 2,
    description: 'owners of files written through the appliance',
    up: (db) => {
      db.exec(`
        CREATE TABLE file_owners (
          pool TEXT NOT NULL,
          path TEXT NOT NULL,
          uid  INTEGER NOT NULL,
          gid  INTEGER NOT NULL,
          PRIMARY KEY (pool, path)
        );
      `);
    },
  },
  {
    version: 3,
    description: 'datasets, with a root dataset for every pool',
    up: (db) => {
      db.exec(`
        CREATE TABLE datasets (
          id         TEXT PRIMARY KEY,
          pool       TEXT NOT NULL REFERENCES pools(name) ON DELETE CASCADE,
          properties TEXT NOT NULL DEFAULT '{}',
          user_properties TEXT NOT NULL DEFAULT '{}',
          created_at INTEGER NOT NULL
        );
        INSERT INTO datasets (id, pool, created_at) SELECT name, name, CAST(strftime('%s', 'now') AS INTEGER) * 1000 FROM pools;
      `);
    },
  },
  {
    version: 4,
    description: 'dataset comments and managedby as the ZFS user properties 25.10.1 keeps them in',
    up: (db) => {
      // Written out here, not imported: a shipped migration must not change when the appliance does.
      const moved = { comments: 'org.freenas:description', managedby: 'org.truenas:managedby' } as const;
      const rows = db.prepare('SELECT id, properties, user_properties FROM datasets').all() as {
        id: string;
        properties: string;
        user_properties: string;
      }[];
      const update = db.prepare('UPDATE datasets SET properties = ?, user_properties = ? WHERE id = ?');
      for (const row of rows) {
        const properties = JSON.parse(row.properties) as Record<string, unknown>;
        const user = JSON.parse(row.user_properties) as Record<string, string>;
        let changed = false;
        for (const [field, key] of Object.entries(moved)) {
          if (!Object.hasOwn(properties, field)) continue;
          const v = properties[field];
          delete properties[field];
          changed = true;
          // The old default ('' for comments, INHERIT for managedby) meant "not set".
          if (typeof v === 'string' && v !== '' && v !== 'INHERIT' && !Object.hasOwn(user, key)) user[key] = v;
        }
        if (changed) update.run(JSON.stringify(properties), JSON.stringify(user), row.id);
      }
    },
  },
  {
    version: 5,
    description: 'two-factor authentication: the global setting and per-user TOTP secrets',
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS twofactor_config (
          id       INTEGER PRIMARY KEY CHECK (id = 1),
          enabled  INTEGER NOT NULL DEFAULT 0,
          window   INTEGER NOT NULL DEFAULT 0,
          services TEXT NOT NULL DEFAULT '{}'
        );
        INSERT OR IGNORE INTO twofactor_config (id) VALUES (1);
        CREATE TABLE IF NOT EXISTS user_twofactor (
          user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          secret     TEXT,
          interval   INTEGER NOT NULL DEFAULT 30,
          otp_digits INTEGER NOT NULL DEFAULT 6
        );
      `);
    },
  },
  {
    version: 6,
    description: 'snapshots: one row per DATASET@NAME, its files copied under <state>/snapshots/<copy>',
    up: (db) => {
      // txg numbers snapshots in the order they were taken (createtxg); AUTOINCREMENT never reuses one.
      db.exec(`
        CREATE TABLE IF NOT EXISTS snapshots (
          txg             INTEGER PRIMARY KEY AUTOINCREMENT,
          id              TEXT NOT NULL UNIQUE,
          dataset         TEXT NOT NULL,
          pool            TEXT NOT NULL,
          copy            TEXT NOT NULL UNIQUE,
          referenced      INTEGER NOT NULL,
          guid            TEXT NOT NULL,
          user_properties TEXT NOT NULL DEFAULT '{}',
          owners          TEXT NOT NULL DEFAULT '[]',
          created_at      INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS snapshots_dataset ON snapshots (dataset);
      `);
    },
  },
  {
    version: 7,
    description: 'snapshot holds: the `truenas` tag pool.snapshot.hold places, gone with the snapshot',
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS snapshot_holds (
          snapshot   TEXT NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
          tag        TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (snapshot, tag)
        );
      `);
    },
  },
  {
    version: 8,
    description:
      'truenas_admin has a password no one knows, as after an install, where the seed left it password-disabled',
    up: (db) => {
      // Only where it is still as older seeds left it: disabled and without a hash. The hash is of
      // no known password (secrets.ts unknownSecretHash); logins keep using the admin key.
      db.prepare(
        'UPDATE users SET password_disabled = 0, password_hash = ? WHERE uid = 950 AND password_disabled = 1 AND password_hash IS NULL',
      ).run(unknownSecretHash());
    },
  },
  {
    version: 9,
    description: 'api_key_scram: the SCRAM-SHA-512 data of a key (TrueNAS 26), derived keys only',
    up: (db) => {
      // StoredKey and ServerKey are one-way derivations of the secret (RFC 5802 §3), as 26's
      // account_api_key table keeps them (MW/plugins/api_key.py:31-42 at stable/26); never the key.
      db.exec(`
        CREATE TABLE IF NOT EXISTS api_key_scram (
          key_id     INTEGER PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
          iterations INTEGER NOT NULL,
          salt       TEXT NOT NULL,
          stored_key TEXT NOT NULL,
          server_key TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 10,
    description:
      'the Debian system accounts a 25.10.1 lists as built-in users and groups (news, operator, …), added to a state seeded without them',
    up: (db) => {
      // A fresh state gets them from the seed, which runs after the migrations; a seeded one here,
      // leaving every account of its own as it is (builtin-accounts.ts).
      if (readSettings(db).seeded_at !== undefined) addBuiltinAccounts(db);
    },
  },
  {
    version: 11,
    description: 'NFS shares (sharing.nfs) and the NFS service settings (nfs.config), as a fresh 25.10.1 has them',
    up: (db) => {
      // One row per share, its list fields as JSON; ids never reused (AUTOINCREMENT, as 25.10.1's
      // sharing_nfs_share: MW/alembic/initial.sql:211). nfs_config is the one row of services_nfs,
      // with a fresh install's values (initial.sql:189 and the migrations after it: servers NULL,
      // MW/alembic/versions/24.04/2023-12-08_01-55_make_nfs_servers_nullable.py; both protocols,
      // 23.10/2022-12-14_00-45_nfs_protocols.py:29-31; rdma off, 25.04/2024-10-04_18-09_add_nfs_rdma.py).
      db.exec(`
        CREATE TABLE IF NOT EXISTS nfs_shares (
          id               INTEGER PRIMARY KEY AUTOINCREMENT,
          path             TEXT NOT NULL,
          aliases          TEXT NOT NULL DEFAULT '[]',
          comment          TEXT NOT NULL DEFAULT '',
          networks         TEXT NOT NULL DEFAULT '[]',
          hosts            TEXT NOT NULL DEFAULT '[]',
          ro               INTEGER NOT NULL DEFAULT 0,
          maproot_user     TEXT,
          maproot_group    TEXT,
          mapall_user      TEXT,
          mapall_group     TEXT,
          security         TEXT NOT NULL DEFAULT '[]',
          enabled          INTEGER NOT NULL DEFAULT 1,
          expose_snapshots INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE IF NOT EXISTS nfs_config (
          id                INTEGER PRIMARY KEY CHECK (id = 1),
          servers           INTEGER,
          allow_nonroot     INTEGER NOT NULL DEFAULT 0,
          protocols         TEXT NOT NULL DEFAULT '["NFSV3", "NFSV4"]',
          v4_krb            INTEGER NOT NULL DEFAULT 0,
          v4_domain         TEXT NOT NULL DEFAULT '',
          bindip            TEXT NOT NULL DEFAULT '[]',
          mountd_port       INTEGER,
          rpcstatd_port     INTEGER,
          rpclockd_port     INTEGER,
          mountd_log        INTEGER NOT NULL DEFAULT 1,
          statd_lockd_log   INTEGER NOT NULL DEFAULT 0,
          userd_manage_gids INTEGER NOT NULL DEFAULT 0,
          rdma              INTEGER NOT NULL DEFAULT 0
        );
        INSERT OR IGNORE INTO nfs_config (id) VALUES (1);
      `);
    },
  },
  {
    version: 12,
    description: 'smb_shares and smb_config: SMB shares and the SMB service settings (sharing.smb.*, smb.*)',
    // shares-smb.ts reads and writes them.
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS smb_shares (
          id        INTEGER PRIMARY KEY AUTOINCREMENT,
          purpose   TEXT NOT NULL,
          name      TEXT NOT NULL,
          path      TEXT NOT NULL,
          enabled   INTEGER NOT NULL,
          comment   TEXT NOT NULL,
          readonly  INTEGER NOT NULL,
          browsable INTEGER NOT NULL,
          abe       INTEGER NOT NULL,
          audit     TEXT NOT NULL,
          options   TEXT NOT NULL,
          share_acl TEXT
        );
        CREATE TABLE IF NOT EXISTS smb_config (
          id     INTEGER PRIMARY KEY CHECK (id = 1),
          config TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 13,
    description:
      'services: the service records a fresh install lists (cifs, nfs, ssh, …), stopped, not started at boot',
    up: (db) => createServices(db),
  },
  {
    version: 14,
    description: 'snapshot_tasks: periodic snapshot tasks (pool.snapshottask.*)',
    // snapshot-tasks.ts reads and writes it.
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS snapshot_tasks (
          id             INTEGER PRIMARY KEY AUTOINCREMENT,
          dataset        TEXT NOT NULL,
          recursive      INTEGER NOT NULL,
          lifetime_value INTEGER NOT NULL,
          lifetime_unit  TEXT NOT NULL,
          enabled        INTEGER NOT NULL,
          exclude        TEXT NOT NULL,
          naming_schema  TEXT NOT NULL,
          allow_empty    INTEGER NOT NULL,
          schedule       TEXT NOT NULL,
          state          TEXT
        );
      `);
    },
  },
  {
    version: 15,
    description:
      'replications: replication tasks (replication.*), their bound periodic snapshot tasks, replication.config',
    // replications.ts reads and writes them. The links go with either side, as
    // storage_replication_repl_periodic_snapshot_tasks's do (MW/plugins/replication.py:96-101);
    // max_parallel_replication_tasks defaults to 5 (MW/plugins/replication_/config.py:65-69).
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS replications (
          id    INTEGER PRIMARY KEY AUTOINCREMENT,
          data  TEXT NOT NULL,
          state TEXT
        );
        CREATE TABLE IF NOT EXISTS replication_snapshot_tasks (
          id             INTEGER PRIMARY KEY AUTOINCREMENT,
          replication_id INTEGER NOT NULL REFERENCES replications(id) ON DELETE CASCADE,
          task_id        INTEGER NOT NULL REFERENCES snapshot_tasks(id) ON DELETE CASCADE
        );
        CREATE TABLE IF NOT EXISTS replication_config (
          id                             INTEGER PRIMARY KEY CHECK (id = 1),
          max_parallel_replication_tasks INTEGER
        );
        INSERT OR IGNORE INTO replication_config (id, max_parallel_replication_tasks) VALUES (1, 5);
      `);
    },
  },
  {
    version: 16,
    description: 'keychain_credentials: SSH key pairs and SSH connections (keychaincredential.*)',
    // keychain-credentials.ts reads and writes it. It stands alone: it needs no table of another
    // migration, so it runs the same whatever comes between 14 and it.
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS keychain_credentials (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          name       TEXT NOT NULL,
          type       TEXT NOT NULL,
          attributes TEXT NOT NULL
        );
      `);
    },
  },
];

/** The last migration's version. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** Runs the migrations the database has not seen. Call inside an IMMEDIATE transaction. */
export function migrate(db: Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `the state database is at schema version ${current}, newer than this stor (${SCHEMA_VERSION}); upgrade stor`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    m.up(db);
    db.pragma(`user_version = ${m.version}`);
  }
  return current;
}
