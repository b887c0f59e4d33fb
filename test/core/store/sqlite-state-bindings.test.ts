import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../src/core/store/migrations.js';
import { readSettings } from '../../../src/core/store/settings.js';
import { binding } from '../../../src/core/store/sqlite.js';
import { Store } from '../../../src/core/store/store.js';
import { listUsers } from '../../../src/core/store/users.js';
import { integrity } from '../../helpers/database.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * A state directory moves between Node majors, and so between the two SQLite bindings (node:sqlite
 * from Node 22.13, better-sqlite3 on Node 20): both write SQLite's one file format. The fixtures are
 * stor.db files that Store.open made (migrations and seed at schema version 9) and that then got the
 * setting `fixture`, one by each binding: better-sqlite3 12 on Node 20.20, node:sqlite on Node 24.22.
 * Whichever binding runs this suite opens both, migrates them to the current schema and reads them;
 * CI runs it on Node 20 and on 22, 24 and 26, so each binding reads what the other wrote.
 */
describe('a state written by either SQLite binding', () => {
  for (const writer of ['better-sqlite3', 'node:sqlite'] as const) {
    it(`written by ${writer}: opens, migrates and reads with this runtime's binding (${binding})`, () => {
      const home = tempDir();
      const fixture = fileURLToPath(
        new URL(`../../fixtures/sqlite-state/${writer.replace(':', '-')}.db`, import.meta.url),
      );
      copyFileSync(fixture, join(home, 'stor.db'));
      const store = Store.open(home);
      try {
        expect(store.read(() => readSettings(store.db)).fixture).toBe(`written by ${writer}`);
        expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(store.read(() => listUsers(store.db)).map((u) => u.username)).toContain('root');
        store.write(() => store.db.prepare("UPDATE settings SET value = 'rewritten' WHERE key = 'fixture'").run());
      } finally {
        store.close();
      }
      expect(integrity(home)).toBe('ok');
    });
  }
});
