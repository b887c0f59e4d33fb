import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';

const load = createRequire(import.meta.url);

export type SqliteBinding = 'better-sqlite3-napi' | 'better-sqlite3';

/**
 * Whether better-sqlite3 12 built for this Node aborts at GC. From Node 24.19's headers on,
 * V8's raw ObjectWrap (which 12 wraps its objects in) removes an Environment cleanup hook in its
 * destructor and asserts a current Environment, which a GC outside JavaScript does not have
 * (nodejs/node#65446). The addon is built against the headers of the Node that installs it.
 */
function abortsBetterSqlite12(nodeVersion: string): boolean {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 19);
}

/**
 * The better-sqlite3 build that this runtime can keep alive. 13.x uses Node-API, without 12's
 * destructor, but needs Node-API 10 (Node ≥ 22.14), which Node 20 lacks; package.json installs it
 * under the alias better-sqlite3-napi where the runtime's engine allows it, and both share one API.
 * Without 13 (`--omit=optional`, or installed under another Node), 12 is the honest fallback only
 * where it does not abort: elsewhere the process would die at a random GC, so stor refuses to start.
 */
export function chooseSqliteBinding(runtime: { napi: number; version: string }, installed: (name: SqliteBinding) => boolean): SqliteBinding {
  if (runtime.napi >= 10 && installed('better-sqlite3-napi')) return 'better-sqlite3-napi';
  if (abortsBetterSqlite12(runtime.version)) {
    throw new StorError(E.SQLITE_BINDING_MISSING, `Node.js ${runtime.version} needs better-sqlite3 13 (the optional dependency better-sqlite3-napi), which is not installed`, {
      hint: 'reinstall with optional dependencies (`npm ci`), or run stor on Node.js 20 or 22',
    });
  }
  return 'better-sqlite3';
}

function isInstalled(name: SqliteBinding): boolean {
  try {
    load.resolve(name);
    return true;
  } catch {
    return false;
  }
}

export const Database: typeof BetterSqlite3 = load(
  chooseSqliteBinding({ napi: Number(process.versions.napi), version: process.version }, isInstalled),
) as typeof BetterSqlite3;
