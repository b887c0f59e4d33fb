import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';

const load = createRequire(import.meta.url);

export type SqliteBinding = 'node:sqlite' | 'better-sqlite3';

export type RunResult = { changes: number | bigint; lastInsertRowid: number | bigint };

/** The part of a prepared statement the store uses; better-sqlite3's statements have it as they are. */
export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** From now on get() answers the first column's value and all() a list of them. */
  pluck(): this;
}

/** The part of a connection the store uses: better-sqlite3's API, which the node:sqlite connection below follows. */
export interface Database {
  readonly open: boolean;
  prepare(text: string): Statement;
  exec(text: string): unknown;
  pragma(text: string, options?: { simple: boolean }): unknown;
  transaction<T>(fn: () => T): { immediate(): T; deferred(): T };
  close(): unknown;
}

/**
 * The binding this runtime opens SQLite with. node:sqlite is built into Node from 22.13 on and
 * needs no install; better-sqlite3 12 (an optional dependency, compiled on Node 20 only:
 * scripts/node-gyp-gate) is the fallback where node:sqlite is missing. Both write the
 * same SQLite file format, so a state directory moves between Node majors either way.
 */
export function chooseSqliteBinding(
  runtime: { hasNodeSqlite: boolean; version: string },
  installed: (name: 'better-sqlite3') => boolean,
): SqliteBinding {
  if (runtime.hasNodeSqlite) return 'node:sqlite';
  if (installed('better-sqlite3')) return 'better-sqlite3';
  throw new StorError(
    E.SQLITE_BINDING_MISSING,
    `Node.js ${runtime.version} has no node:sqlite, and better-sqlite3 (the optional dependency stor uses instead) is not installed`,
    {
      hint: 'reinstall with optional dependencies (`npm ci`) where better-sqlite3 can be built, or run stor on Node.js 22.13 or newer',
    },
  );
}

/** The part of node:sqlite stor uses (@types/node 20, the oldest runtime's types, does not declare the module). */
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
}
interface DatabaseSync {
  prepare(text: string): StatementSync;
  exec(text: string): void;
  close(): void;
}
type NodeSqlite = { DatabaseSync: new (file: string, options: { readOnly: boolean }) => DatabaseSync };

const EXPERIMENTAL = 'SQLite is an experimental feature and might change at any time';

/**
 * node:sqlite, or undefined where this Node lacks it (Node 20; 22 before 22.13 without a flag).
 * Node 22 prints an ExperimentalWarning when it loads (24 and 26 do not); the API stor uses (prepare, run, get,
 * all, exec) is unchanged from 22.13 to 26, so that one warning is dropped while the module loads,
 * here, and no other: a command's stderr stays stor's own.
 */
function loadNodeSqlite(): NodeSqlite | undefined {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text === EXPERIMENTAL) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite') as NodeSqlite | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** better-sqlite3's error codes ('SQLITE_BUSY', …) from node:sqlite's numeric primary code, for the codes stor tells apart. */
const PRIMARY_CODES: Record<number, string> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};

function sqliteError(err: unknown): unknown {
  const errcode = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode !== 'number') return err;
  const name = PRIMARY_CODES[errcode & 0xff];
  if (name) Object.assign(err as object, { code: name });
  return err;
}

function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw sqliteError(err);
  }
}

class NodeStatement implements Statement {
  private plucked = false;
  constructor(private readonly stmt: StatementSync) {}

  run(...params: unknown[]): RunResult {
    return guarded(() => this.stmt.run(...params));
  }

  get(...params: unknown[]): unknown {
    const row = guarded(() => this.stmt.get(...params));
    return this.plucked && row !== undefined ? Object.values(row)[0] : row;
  }

  all(...params: unknown[]): unknown[] {
    const rows = guarded(() => this.stmt.all(...params));
    return this.plucked ? rows.map((row) => Object.values(row)[0]) : rows;
  }

  pluck(): this {
    this.plucked = true;
    return this;
  }
}

/**
 * A node:sqlite connection with the part of better-sqlite3's API the store uses. Transactions
 * follow better-sqlite3's: BEGIN IMMEDIATE/DEFERRED, or a SAVEPOINT when already inside one;
 * rolled back when the function throws.
 */
class NodeDatabase implements Database {
  private readonly db: DatabaseSync;
  private depth = 0;
  private isOpen = true;

  constructor(sqlite: NodeSqlite, file: string, readonly: boolean) {
    this.db = guarded(() => new sqlite.DatabaseSync(file, { readOnly: readonly }));
  }

  get open(): boolean {
    return this.isOpen;
  }

  prepare(text: string): Statement {
    return new NodeStatement(guarded(() => this.db.prepare(text)));
  }

  exec(text: string): void {
    guarded(() => this.db.exec(text));
  }

  pragma(text: string, options?: { simple: boolean }): unknown {
    const stmt = this.prepare(`PRAGMA ${text}`);
    return options?.simple ? stmt.pluck().get() : stmt.all();
  }

  transaction<T>(fn: () => T): { immediate(): T; deferred(): T } {
    return { immediate: () => this.within('BEGIN IMMEDIATE', fn), deferred: () => this.within('BEGIN DEFERRED', fn) };
  }

  private within<T>(begin: string, fn: () => T): T {
    const nested = this.depth > 0;
    const savepoint = `stor_${this.depth}`;
    this.exec(nested ? `SAVEPOINT ${savepoint}` : begin);
    this.depth++;
    try {
      const result = fn();
      if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
      this.exec(nested ? `RELEASE ${savepoint}` : 'COMMIT');
      return result;
    } catch (err) {
      // SQLite may have rolled back already (a full disk, an I/O error): nothing is left to undo then.
      try {
        this.exec(nested ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
      } catch {
        /* no transaction is active */
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  close(): void {
    this.isOpen = false;
    this.db.close();
  }
}

function isInstalled(name: string): boolean {
  try {
    load.resolve(name);
    return true;
  } catch {
    return false;
  }
}

const nodeSqlite = loadNodeSqlite();

export const binding: SqliteBinding = chooseSqliteBinding(
  { hasNodeSqlite: nodeSqlite !== undefined, version: process.version },
  isInstalled,
);

/** Opens (creating it if needed, unless read-only) the SQLite database `file` with this runtime's binding. */
export function openDatabase(file: string, options: { readonly?: boolean } = {}): Database {
  const readonly = options.readonly === true;
  if (nodeSqlite) return new NodeDatabase(nodeSqlite, file, readonly);
  // Typed as better-sqlite3's own class: the compiler checks that it has all of Database.
  const BetterSqlite3Class = load('better-sqlite3') as typeof BetterSqlite3;
  const db: Database = new BetterSqlite3Class(file, { readonly });
  return db;
}
