import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const load = createRequire(import.meta.url);

/**
 * The better-sqlite3 build that this runtime can keep alive. 12.x wraps its objects in V8's raw
 * ObjectWrap, whose destructor (from Node 24.19's headers on) asserts a current Environment: the
 * first GC that collects a Statement or Database aborts the process. 13.x uses Node-API and has no
 * such destructor, but needs Node-API 10 (Node ≥ 22.14), which Node 20 lacks. package.json installs
 * 13 under the alias better-sqlite3-napi where the runtime's engine allows it; both share one API.
 */
export const Database: typeof BetterSqlite3 = load(
  Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3',
) as typeof BetterSqlite3;
