import type { Database } from './sqlite.js';
import { sql } from './statements.js';

/**
 * A row of `services`: 25.10.1's `services_services` (id, srv_service, srv_enable;
 * MW/plugins/service.py:26-31) and the state the emulator keeps in place of a running daemon
 * (README "What is not emulated": no daemon is run, the record says whether it would be).
 */
export interface ServiceRecord {
  id: number;
  service: string;
  enable: boolean;
  running: boolean;
}

interface ServiceRow {
  id: number;
  service: string;
  enable: number;
  running: number;
}

const record = (r: ServiceRow): ServiceRecord => ({
  id: r.id,
  service: r.service,
  enable: r.enable === 1,
  running: r.running === 1,
});

/**
 * The rows a fresh install has, by id. 25.10.1's: what MW/alembic/initial.sql:49-63 inserts
 * less what later migrations delete (afp, dynamicdns, tftp, rsync, smartd, lldp, webdav, s3;
 * versions/22.02/2021-05-25_22-00_afp_to_smb.py:126, 22.12/2022-02-17_18-44_remove_ladvd.py:20,
 * 23.10/2023-05-02_08-31_remove_s3.py:21, 23.10/2023-05-21_12-12_remove_tftp.py:21,
 * 23.10/2023-05-26_12-42_remove_legacy_services.py:28, 25.10/2025-03-20_11-52_drop_smart.py:130),
 * then nvmet (25.10/2025-04-21_15-33_add_nvmet.py:111). The table is AUTOINCREMENT and
 * initial.sql:237 empties sqlite_sequence, so a new row's id is one past the largest ever: 24 and
 * 25 went to openvpn_client/openvpn_server (12.0/2019-11-19_20-41_openvpn.py:66-67), 26 to glusterd
 * (22.02/2020-10-20_12-46_glusterd_service.py:19), all deleted since; nvmet is 27. 26.0 adds
 * webshare, 28 (stable/26 versions/26.0/2025-11-19_14-42_webshare.py:35); which release lists which
 * row is the emulator's (appliance/services/records.ts).
 */
export const SERVICE_SEED: readonly { id: number; service: string }[] = [
  { id: 4, service: 'cifs' },
  { id: 6, service: 'ftp' },
  { id: 7, service: 'iscsitarget' },
  { id: 9, service: 'nfs' },
  { id: 10, service: 'snmp' },
  { id: 11, service: 'ssh' },
  { id: 14, service: 'ups' },
  { id: 27, service: 'nvmet' },
  { id: 28, service: 'webshare' },
];

/** Creates the table with every row stopped and not started at boot (`srv_enable` 0 in every insert). */
export function createServices(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS services (
      id      INTEGER PRIMARY KEY,
      service TEXT NOT NULL UNIQUE,
      enable  INTEGER NOT NULL DEFAULT 0,
      running INTEGER NOT NULL DEFAULT 0
    );
  `);
  const insert = db.prepare('INSERT OR IGNORE INTO services (id, service) VALUES (?, ?)');
  for (const s of SERVICE_SEED) insert.run(s.id, s.service);
}

export function listServiceRecords(db: Database): ServiceRecord[] {
  return (sql(db, 'SELECT id, service, enable, running FROM services ORDER BY id').all() as ServiceRow[]).map(record);
}

export function setServiceEnable(db: Database, id: number, enable: boolean): void {
  sql(db, 'UPDATE services SET enable = ? WHERE id = ?').run(enable ? 1 : 0, id);
}

export function setServiceRunning(db: Database, id: number, running: boolean): void {
  sql(db, 'UPDATE services SET running = ? WHERE id = ?').run(running ? 1 : 0, id);
}
