import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

export interface PrivilegeRecord {
  id: number;
  builtin_name: string | null;
  name: string;
  /** GIDs, as the API takes them on input. */
  local_groups: number[];
  ds_groups: (number | string)[];
  roles: string[];
  web_shell: boolean;
}

export type NewPrivilege = Omit<PrivilegeRecord, 'id'>;

interface PrivilegeRow {
  id: number;
  builtin_name: string | null;
  name: string;
  local_groups: string;
  ds_groups: string;
  roles: string;
  web_shell: number;
}

function toRecord(row: PrivilegeRow): PrivilegeRecord {
  return {
    id: row.id,
    builtin_name: row.builtin_name,
    name: row.name,
    local_groups: fromJsonColumn(row.local_groups, []),
    ds_groups: fromJsonColumn(row.ds_groups, []),
    roles: fromJsonColumn(row.roles, []),
    web_shell: bool(row.web_shell),
  };
}

export function listPrivileges(db: Database): PrivilegeRecord[] {
  return (sql(db, 'SELECT * FROM privileges ORDER BY id').all() as PrivilegeRow[]).map(toRecord);
}

export function findPrivilege(db: Database, id: number): PrivilegeRecord | undefined {
  const row = sql(db, 'SELECT * FROM privileges WHERE id = ?').get(id) as PrivilegeRow | undefined;
  return row && toRecord(row);
}

export function insertPrivilege(db: Database, p: NewPrivilege): number {
  const info = sql(
    db,
    `INSERT INTO privileges (builtin_name, name, local_groups, ds_groups, roles, web_shell)
       VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(
    p.builtin_name,
    p.name,
    toJsonColumn(p.local_groups),
    toJsonColumn(p.ds_groups),
    toJsonColumn(p.roles),
    p.web_shell ? 1 : 0,
  );
  return Number(info.lastInsertRowid);
}

/** Rewrites every field in one statement, so a reader sees the old privilege or the new one. */
export function updatePrivilege(db: Database, p: PrivilegeRecord): void {
  sql(db, `UPDATE privileges SET name = ?, local_groups = ?, ds_groups = ?, roles = ?, web_shell = ? WHERE id = ?`).run(
    p.name,
    toJsonColumn(p.local_groups),
    toJsonColumn(p.ds_groups),
    toJsonColumn(p.roles),
    p.web_shell ? 1 : 0,
    p.id,
  );
}

export function deletePrivilege(db: Database, id: number): void {
  sql(db, 'DELETE FROM privileges WHERE id = ?').run(id);
}
