import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

export interface UserRecord {
  id: number;
  uid: number;
  username: string;
  full_name: string;
  home: string;
  shell: string;
  /** DB id of the primary group. */
  group_id: number;
  /** DB ids of the supplementary groups. */
  groups: number[];
  builtin: boolean;
  smb: boolean;
  password_disabled: boolean;
  password_hash: string | null;
  locked: boolean;
  email: string | null;
  sshpubkey: string | null;
  ssh_password_enabled: boolean;
  sudo_commands: string[];
  sudo_commands_nopasswd: string[];
  userns_idmap: number | 'DIRECT' | null;
  last_password_change: number | null;
}

export type NewUser = Omit<UserRecord, 'id'>;

interface UserRow extends Omit<
  UserRecord,
  | 'groups'
  | 'builtin'
  | 'smb'
  | 'password_disabled'
  | 'locked'
  | 'ssh_password_enabled'
  | 'sudo_commands'
  | 'sudo_commands_nopasswd'
  | 'userns_idmap'
> {
  builtin: number;
  smb: number;
  password_disabled: number;
  locked: number;
  ssh_password_enabled: number;
  sudo_commands: string;
  sudo_commands_nopasswd: string;
  userns_idmap: string | null;
}

export function listUsers(db: Database): UserRecord[] {
  const memberships = sql(db, 'SELECT user_id, group_id FROM user_groups ORDER BY rowid').all() as {
    user_id: number;
    group_id: number;
  }[];
  const groupsOf = new Map<number, number[]>();
  for (const m of memberships) {
    const list = groupsOf.get(m.user_id) ?? [];
    list.push(m.group_id);
    groupsOf.set(m.user_id, list);
  }
  return (sql(db, 'SELECT * FROM users ORDER BY id').all() as UserRow[]).map((row) => ({
    ...row,
    groups: groupsOf.get(row.id) ?? [],
    builtin: bool(row.builtin),
    smb: bool(row.smb),
    password_disabled: bool(row.password_disabled),
    locked: bool(row.locked),
    ssh_password_enabled: bool(row.ssh_password_enabled),
    sudo_commands: fromJsonColumn(row.sudo_commands, []),
    sudo_commands_nopasswd: fromJsonColumn(row.sudo_commands_nopasswd, []),
    userns_idmap: fromJsonColumn(row.userns_idmap, null),
  }));
}

function toRow(u: NewUser): Record<string, unknown> {
  return {
    uid: u.uid,
    username: u.username,
    full_name: u.full_name,
    home: u.home,
    shell: u.shell,
    group_id: u.group_id,
    builtin: u.builtin ? 1 : 0,
    smb: u.smb ? 1 : 0,
    password_disabled: u.password_disabled ? 1 : 0,
    password_hash: u.password_hash,
    locked: u.locked ? 1 : 0,
    email: u.email,
    sshpubkey: u.sshpubkey,
    ssh_password_enabled: u.ssh_password_enabled ? 1 : 0,
    sudo_commands: toJsonColumn(u.sudo_commands),
    sudo_commands_nopasswd: toJsonColumn(u.sudo_commands_nopasswd),
    userns_idmap: u.userns_idmap === null ? null : toJsonColumn(u.userns_idmap),
    last_password_change: u.last_password_change,
  };
}

export function insertUser(db: Database, u: NewUser): number {
  const info = sql(
    db,
    `INSERT INTO users (uid, username, full_name, home, shell, group_id, builtin, smb, password_disabled,
         password_hash, locked, email, sshpubkey, ssh_password_enabled, sudo_commands, sudo_commands_nopasswd,
         userns_idmap, last_password_change)
       VALUES (@uid, @username, @full_name, @home, @shell, @group_id, @builtin, @smb, @password_disabled,
         @password_hash, @locked, @email, @sshpubkey, @ssh_password_enabled, @sudo_commands, @sudo_commands_nopasswd,
         @userns_idmap, @last_password_change)`,
  ).run(toRow(u));
  const id = Number(info.lastInsertRowid);
  const add = sql(db, 'INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?, ?)');
  for (const g of u.groups) add.run(id, g);
  return id;
}

/** Rewrites a user row and its supplementary groups. */
export function updateUser(db: Database, id: number, u: NewUser): void {
  sql(
    db,
    `UPDATE users SET uid = @uid, username = @username, full_name = @full_name, home = @home, shell = @shell,
       group_id = @group_id, builtin = @builtin, smb = @smb, password_disabled = @password_disabled,
       password_hash = @password_hash, locked = @locked, email = @email, sshpubkey = @sshpubkey,
       ssh_password_enabled = @ssh_password_enabled, sudo_commands = @sudo_commands,
       sudo_commands_nopasswd = @sudo_commands_nopasswd, userns_idmap = @userns_idmap,
       last_password_change = @last_password_change
     WHERE id = @id`,
  ).run({ id, ...toRow(u) });
  sql(db, 'DELETE FROM user_groups WHERE user_id = ?').run(id);
  const add = sql(db, 'INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?, ?)');
  for (const g of u.groups) add.run(id, g);
}

export function deleteUser(db: Database, id: number): void {
  sql(db, 'DELETE FROM users WHERE id = ?').run(id);
}

/** Moves every user whose primary group is `from` to `to`. */
export function reassignPrimaryGroup(db: Database, from: number, to: number): void {
  sql(db, 'UPDATE users SET group_id = ? WHERE group_id = ?').run(to, from);
}
