import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../../src/core/store/settings.js';
import { openDatabase } from '../../../src/core/store/sqlite.js';
import { STATE_DB_FILE } from '../../../src/core/store/state-file.js';
import { Store } from '../../../src/core/store/store.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('opening a state that is current and seeded', () => {
  it('takes no write lock: it opens while another connection holds one', () => {
    const home = tempDir();
    Store.open(home).close();
    const other = openDatabase(join(home, STATE_DB_FILE));
    other.exec('BEGIN IMMEDIATE');
    try {
      // Were the open to take the write lock, it would wait BUSY_TIMEOUT_MS and then fail SQLITE_BUSY.
      const store = Store.open(home);
      try {
        expect(store.read(() => readSettings(store.db)).seeded_at).toBeDefined();
      } finally {
        store.close();
      }
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
