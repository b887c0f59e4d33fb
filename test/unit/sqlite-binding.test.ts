import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { StorError } from '../../src/core/errors.js';
import { chooseSqliteBinding, type SqliteBinding } from '../../src/core/store/sqlite.js';

const both = () => true;
const only12 = (name: SqliteBinding) => name === 'better-sqlite3';

describe('which better-sqlite3 build the store loads (src/core/store/sqlite.ts)', () => {
  it('13 (Node-API) where Node-API 10 is there and it is installed; 12 on Node 20 and early 22, which lack Node-API 10', () => {
    expect(chooseSqliteBinding({ napi: 10, version: 'v24.21.0' }, both)).toBe('better-sqlite3-napi');
    expect(chooseSqliteBinding({ napi: 10, version: 'v22.23.3' }, both)).toBe('better-sqlite3-napi');
    // 13's engines (>= 22) let npm install it on 22.0-22.13, where it cannot load.
    expect(chooseSqliteBinding({ napi: 9, version: 'v22.9.0' }, both)).toBe('better-sqlite3');
    expect(chooseSqliteBinding({ napi: 9, version: 'v20.20.2' }, only12)).toBe('better-sqlite3');
  });

  it('without 13 (--omit=optional) falls back to 12 where 12 lives: Node 22, and Node 24 before 24.19', () => {
    expect(chooseSqliteBinding({ napi: 10, version: 'v22.23.3' }, only12)).toBe('better-sqlite3');
    expect(chooseSqliteBinding({ napi: 10, version: 'v24.18.1' }, only12)).toBe('better-sqlite3');
  });

  it('without 13 on Node >= 24.19 refuses with SQLITE_BINDING_MISSING (exit 1) and the remedy, instead of aborting at a GC later', () => {
    for (const version of ['v24.19.0', 'v24.21.0', 'v25.0.0', 'v26.1.0']) {
      let thrown: unknown;
      try {
        chooseSqliteBinding({ napi: 10, version }, only12);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, version).toBeInstanceOf(StorError);
      expect(thrown).toMatchObject({ code: 'SQLITE_BINDING_MISSING', kind: 'failed', hint: expect.stringContaining('npm ci') });
      expect((thrown as Error).message).toContain(`Node.js ${version} needs better-sqlite3 13`);
    }
  });

  it('on the runtime running this suite, the install has the build it needs, and the store loaded one that works', async () => {
    const require = createRequire(import.meta.url);
    const installed = (name: SqliteBinding) => {
      try {
        require.resolve(name);
        return true;
      } catch {
        return false;
      }
    };
    // npm ci with optional dependencies: 13 wherever its engines allow it (every Node this suite runs on but 20).
    expect(installed('better-sqlite3-napi')).toBe(Number(process.versions.node.split('.')[0]) >= 22);
    expect(chooseSqliteBinding({ napi: Number(process.versions.napi), version: process.version }, installed)).toBe(
      Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3',
    );
    const { Database } = await import('../../src/core/store/sqlite.js');
    const db = new Database(':memory:');
    expect(db.prepare('select sqlite_version() as v').get()).toMatchObject({ v: expect.stringMatching(/^3\./) });
    db.close();
  });
});
