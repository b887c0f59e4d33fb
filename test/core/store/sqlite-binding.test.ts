import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { StorError } from '../../../src/core/errors.js';
import { binding, chooseSqliteBinding, openDatabase } from '../../../src/core/store/sqlite.js';
import { tempDir } from '../../helpers/temp-dir.js';

const installed = () => true;
const missing = () => false;
/** node:sqlite without a flag: Node 22.13 and later. */
const runtimeHasNodeSqlite = (() => {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
})();

describe('which SQLite binding the store opens (src/core/store/sqlite.ts)', () => {
  it('node:sqlite wherever Node has it, even with better-sqlite3 installed; better-sqlite3 where Node lacks it (Node 20)', () => {
    expect(chooseSqliteBinding({ hasNodeSqlite: true, version: 'v24.22.0' }, installed)).toBe('node:sqlite');
    expect(chooseSqliteBinding({ hasNodeSqlite: true, version: 'v22.23.5' }, missing)).toBe('node:sqlite');
    expect(chooseSqliteBinding({ hasNodeSqlite: false, version: 'v20.20.2' }, installed)).toBe('better-sqlite3');
  });

  it('with neither refuses with SQLITE_BINDING_MISSING (exit 1) and the remedy', () => {
    let thrown: unknown;
    try {
      chooseSqliteBinding({ hasNodeSqlite: false, version: 'v20.20.2' }, missing);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StorError);
    expect(thrown).toMatchObject({
      code: 'SQLITE_BINDING_MISSING',
      kind: 'failed',
      hint: expect.stringContaining('npm ci'),
    });
    expect((thrown as Error).message).toContain('Node.js v20.20.2 has no node:sqlite');
  });

  it('on the runtime running this suite: node:sqlite from Node 22.13 on, better-sqlite3 (installed by npm ci) before', () => {
    expect(binding).toBe(runtimeHasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    if (!runtimeHasNodeSqlite) expect(() => createRequire(import.meta.url).resolve('better-sqlite3')).not.toThrow();
  });

  it('loading the store prints nothing: Node 22 announces node:sqlite with an ExperimentalWarning, which stor drops', async () => {
    const store = fileURLToPath(new URL('../../../dist/core/store/store.js', import.meta.url));
    const script = `const { Store } = await import(${JSON.stringify(store)}); Store.open(process.env.STOR_HOME).close();`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', STOR_HOME: tempDir() },
    });
    expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
  });

  it("transactions behave as better-sqlite3's on either binding: a throw rolls back, a nested one only its savepoint", () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (@v)');
    const values = db.prepare('SELECT v FROM t ORDER BY rowid').pluck();
    expect(() =>
      db
        .transaction(() => {
          insert.run({ v: 'lost' });
          throw new Error('refused');
        })
        .immediate(),
    ).toThrow('refused');
    db.transaction(() => {
      insert.run({ v: 'outer' });
      expect(() =>
        db
          .transaction(() => {
            insert.run({ v: 'inner' });
            throw new Error('inner refused');
          })
          .deferred(),
      ).toThrow('inner refused');
      db.transaction(() => insert.run({ v: 'kept' })).deferred();
    }).immediate();
    expect(values.all()).toEqual(['outer', 'kept']);
    expect(values.get()).toBe('outer');
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.open).toBe(true);
    db.close();
    expect(db.open).toBe(false);
  });

  it("SQLite's errors carry better-sqlite3's code names on either binding (the store tells a read-only state apart by them)", () => {
    const dir = tempDir();
    const db = openDatabase(`${dir}/x.db`);
    db.exec('CREATE TABLE t (v TEXT)');
    db.close();
    const ro = openDatabase(`${dir}/x.db`, { readonly: true });
    let thrown: unknown;
    try {
      ro.prepare("INSERT INTO t (v) VALUES ('x')").run();
    } catch (err) {
      thrown = err;
    }
    expect((thrown as { code?: string }).code).toMatch(/^SQLITE_READONLY/);
    ro.close();
  });
});
