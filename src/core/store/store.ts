import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from './migrations.js';
import { seedFreshAppliance } from './seed.js';

export type Db = Database.Database;

/**
 * The appliance's persistent state: one SQLite database (WAL) and the sandboxed file tree `mnt/`
 * in one state directory. Several processes may open the same directory; every write runs in an
 * IMMEDIATE transaction, so writers queue behind SQLite's lock instead of losing updates.
 */
export class Store {
  private constructor(
    readonly db: Db,
    readonly stateDir: string,
  ) {}

  static open(stateDir: string): Store {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const file = join(stateDir, 'stor.db');
    // Created owner-only before SQLite opens it: the database holds key hashes, and SQLite gives
    // its -wal and -shm files the database file's mode.
    closeSync(openSync(file, 'a', 0o600));
    const db = new Database(file);
    try {
      // Waiting writers retry for up to 15 s: enough for a peer's long transaction, short enough
      // that a wedged peer is reported rather than hanging a script forever.
      db.pragma('busy_timeout = 15000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const store = new Store(db, stateDir);
      store.write(() => {
        migrate(db);
        seedFreshAppliance(db, stateDir);
      });
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
    return this.db.transaction(fn).immediate();
  }

  /** Runs `fn` against one consistent snapshot. */
  read<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
