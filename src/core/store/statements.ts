import type { Database, Statement } from './sqlite.js';

const cache = new WeakMap<Database, Map<string, Statement>>();

/**
 * A prepared statement, compiled once per connection. Compiling SQL costs more than running a
 * small query, and the appliance runs the same few queries on every call.
 */
export function sql(db: Database, text: string): Statement {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let stmt = statements.get(text);
  if (!stmt) {
    stmt = db.prepare(text);
    statements.set(text, stmt);
  }
  return stmt;
}
