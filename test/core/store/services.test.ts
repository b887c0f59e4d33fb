/**
 * The service records (src/core/store/services.ts): migration 11 gives a state an older stor made
 * the rows a fresh install has, stopped and not started at boot, and leaves a state that has them
 * as it is.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { listServiceRecords } from '../../../src/core/store/services.js';
import { openDatabase } from '../../../src/core/store/sqlite.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('service records', () => {
  it('a state at schema 10 gets the fresh rows on its next open; what a later start left is kept across opens', () => {
    const stateDir = tempDir();
    Appliance.open({ stateDir }).close();
    const db = openDatabase(join(stateDir, 'stor.db'));
    db.exec('DROP TABLE services');
    db.pragma('user_version = 10');
    db.close();

    const appliance = Appliance.open({ stateDir });
    try {
      const records = listServiceRecords(appliance.store.db);
      // MW/alembic/initial.sql:49-63 less the deletes, nvmet (25.10) and webshare (26.0: shown only there).
      expect(records.map((r) => [r.id, r.service])).toEqual([
        [4, 'cifs'],
        [6, 'ftp'],
        [7, 'iscsitarget'],
        [9, 'nfs'],
        [10, 'snmp'],
        [11, 'ssh'],
        [14, 'ups'],
        [27, 'nvmet'],
        [28, 'webshare'],
      ]);
      expect(records.every((r) => !r.enable && !r.running)).toBe(true);
      appliance.store.write(() =>
        appliance.store.db.prepare("UPDATE services SET running = 1 WHERE service = 'nfs'").run(),
      );
    } finally {
      appliance.close();
    }
    const again = Appliance.open({ stateDir });
    try {
      expect(listServiceRecords(again.store.db).find((r) => r.service === 'nfs')).toMatchObject({ running: true });
    } finally {
      again.close();
    }
  });
});
