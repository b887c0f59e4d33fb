import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { ownerOnly, ownerOnlyFile } from '../config/owner-only.js';
import { join } from 'node:path';
import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { ADMIN_KEY_FILE, seedFreshAppliance } from './seed.js';
import { readSettings } from './settings.js';
import { STATE_DB_FILE } from './state-file.js';
import { openDatabase, type Database, type Statement } from './sqlite.js';

export type Db = Database;

/**
 * Waiting writers retry for up to 15 s: enough for a peer's long transaction, short enough that a
 * wedged peer is reported rather than hanging a script forever.
 */
export const BUSY_TIMEOUT_MS = 15000;

/** The file system or SQLite refusing to create or write the state: a clear error, not a crash. */
const UNWRITABLE =
  /^(EROFS|EACCES|EPERM|ENOSPC|EDQUOT|ENOENT|ENOTDIR|EIO|SQLITE_(READONLY|CANTOPEN|FULL|PERM|IOERR)\w*)$/;

function stateDirError(stateDir: string, err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !UNWRITABLE.test(code)) return err;
  return new StorError(E.STATE_UNWRITABLE, `cannot use the state directory ${stateDir}: ${(err as Error).message}`, {
    hint: 'point STOR_HOME (or stor serve --state) at a writable directory with free space',
    cause: err,
  });
}

/** Whether the database is at this stor's schema version and already seeded: nothing to migrate or seed. */
function isCurrent(db: Db): boolean {
  return db.pragma('user_version', { simple: true }) === SCHEMA_VERSION && readSettings(db).seeded_at !== undefined;
}

/**
 * The appliance's persistent state: one SQLite database (WAL) and the sandboxed file tree `mnt/`
 * in one state directory. Several processes may open the same directory; every write runs in an
 * IMMEDIATE transaction, so writers queue behind SQLite's lock instead of losing updates.
 */
export class Store {
  /** Commits made through this connection; with SQLite's data_version, it dates a cached read. */
  private localWrites = 0;
  private readonly memo = new Map<string, { version: string; value: unknown }>();
  private readonly dataVersion: Statement;
  /** data_version as read in the current synchronous run; one call reads several cached values. */
  private versionNow: unknown;

  private constructor(
    readonly db: Db,
    readonly stateDir: string,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  static open(stateDir: string): Store {
    try {
      return Store.openUnchecked(stateDir);
    } catch (err) {
      throw stateDirError(stateDir, err);
    }
  }

  private static openUnchecked(stateDir: string): Store {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    ownerOnly(stateDir);
    const file = join(stateDir, STATE_DB_FILE);
    // Back to owner-only on every open, as the directory: a restore or copy under umask 022 leaves
    // the key hashes (database, -wal, -shm) and the administrator key readable by all.
    for (const secret of [file, `${file}-wal`, `${file}-shm`, join(stateDir, ADMIN_KEY_FILE)]) ownerOnlyFile(secret);
    // Created owner-only before SQLite opens it: the database holds key hashes, and SQLite gives
    // its -wal and -shm files the database file's mode.
    closeSync(openSync(file, 'a', 0o600));
    const db = openDatabase(file);
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const store = new Store(db, stateDir);
      // Most starts find the schema current and the state seeded, which neither migrations nor the
      // seed ever undo: one read says so, and no write lock is taken (another process's long write
      // would make every command wait for it). Anything else is settled in the IMMEDIATE
      // transaction, where the same checks run again under the lock.
      if (!store.read(() => isCurrent(db))) {
        store.write(() => {
          migrate(db);
          seedFreshAppliance(db, stateDir);
        });
      }
      chmodSync(file, 0o600);
      return store;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The root of the sandboxed file tree; `/mnt/<pool>/…` maps below it. */
  get mntDir(): string {
    return join(this.stateDir, 'mnt');
  }

  /** Runs `fn` in an IMMEDIATE transaction: the write lock is taken before anything is read. */
  write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      this.localWrites++;
    }
  }

  /**
   * A read whose result is reused until the database changes: `data_version` moves when another
   * process commits, `localWrites` when this one does. Callers must treat the value as read-only.
   */
  cached<T>(key: string, load: () => T): T {
    const version = `${this.currentDataVersion()}:${this.localWrites}`;
    const hit = this.memo.get(key);
    if (hit?.version === version) return hit.value as T;
    const value = this.read(load);
    this.memo.set(key, { version, value });
    return value;
  }

  /** Runs `fn` against one consistent snapshot. */
  read<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred();
  }

  private currentDataVersion(): unknown {
    if (this.versionNow === undefined) {
      // A prepared PRAGMA: db.pragma() compiles the statement on every call.
      this.versionNow = this.dataVersion.get();
      queueMicrotask(() => {
        this.versionNow = undefined;
      });
    }
    return this.versionNow;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
