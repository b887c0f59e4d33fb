import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

export interface GroupRecord {
  id: number;
  gid: number;
  name: string;
  builtin: boolean;
  smb: boolean;
  sudo_commands: string[];
  sudo_commands_nopasswd: string[];
  userns_idmap: number | 'DIRECT' | null;
}

export type NewGroup = Omit<GroupRecord, 'id'>;

interface GroupRow {
  id: number;
  gid: number;
  name: string;
  builtin: number;
  smb: number;
  sudo_commands: string;
  sudo_commands_nopasswd: string;
  userns_idmap: string | null;
}

function toRecord(row: GroupRow): GroupRecord {
  return {
    id: row.id,
    gid: row.gid,
    name: row.name,
    builtin: bool(row.builtin),
    smb: bool(row.smb),
    sudo_commands: fromJsonColumn(row.sudo_commands, []),
    sudo_commands_nopasswd: fromJsonColumn(row.sudo_commands_nopasswd, []),
    userns_idmap: fromJsonColumn(row.userns_idmap, null),
  };
}

export function listGroups(db: Database): GroupRecord[] {
  return (sql(db, 'SELECT * FROM groups ORDER BY id').all() as GroupRow[]).map(toRecord);
}

function toRow(g: NewGroup): Record<string, unknown> {
  return {
    gid: g.gid,
    name: g.name,
    builtin: g.builtin ? 1 : 0,
    smb: g.smb ? 1 : 0,
    sudo_commands: toJsonColumn(g.sudo_commands),
    sudo_commands_nopasswd: toJsonColumn(g.sudo_commands_nopasswd),
    userns_idmap: g.userns_idmap === null ? null : toJsonColumn(g.userns_idmap),
  };
}

export function insertGroup(db: Database, g: NewGroup): number {
  const info = sql(
    db,
    `INSERT INTO groups (gid, name, builtin, smb, sudo_commands, sudo_commands_nopasswd, userns_idmap)
       VALUES (@gid, @name, @builtin, @smb, @sudo_commands, @sudo_commands_nopasswd, @userns_idmap)`,
  ).run(toRow(g));
  return Number(info.lastInsertRowid);
}

export function updateGroup(db: Database, id: number, g: NewGroup): void {
  sql(
    db,
    `UPDATE groups SET gid = @gid, name = @name, builtin = @builtin, smb = @smb, sudo_commands = @sudo_commands,
       sudo_commands_nopasswd = @sudo_commands_nopasswd, userns_idmap = @userns_idmap
     WHERE id = @id`,
  ).run({ id, ...toRow(g) });
}

/** Replaces a group's supplementary members. */
export function setGroupMembers(db: Database, id: number, userIds: readonly number[]): void {
  sql(db, 'DELETE FROM user_groups WHERE group_id = ?').run(id);
  const add = sql(db, 'INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?, ?)');
  for (const userId of userIds) add.run(userId, id);
}

export function deleteGroup(db: Database, id: number): void {
  sql(db, 'DELETE FROM groups WHERE id = ?').run(id);
}
