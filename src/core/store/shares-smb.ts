import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

/**
 * An SMB share as the emulator keeps it: the fields of 25.10.1's share entry but `locked`, which is
 * worked out on each read (MW/service/sharing_service.py:92-106), and the share's ACL, which 25.10.1
 * keeps beside the share (`cifs_share_acl`, MW/plugins/smb_/sharesec.py:135-141).
 */
export interface SmbShareRecord {
  id: number;
  purpose: string;
  name: string;
  /** `/mnt/…`, or `EXTERNAL` for a DFS proxy (whose targets are in `options.remote_path`). */
  path: string;
  enabled: boolean;
  comment: string;
  readonly: boolean;
  browsable: boolean;
  access_based_share_enumeration: boolean;
  audit: { enable: boolean; watch_list: string[]; ignore_list: string[] };
  /** The purpose's options, without their hidden `purpose`. */
  options: Record<string, unknown>;
  /** The share ACL's entries `{ae_who_sid, ae_perm, ae_type}`; null is none set (everyone, full control). */
  share_acl: { ae_who_sid: string; ae_perm: string; ae_type: string }[] | null;
}

export type NewSmbShare = Omit<SmbShareRecord, 'id'>;

interface SmbShareRow {
  id: number;
  purpose: string;
  name: string;
  path: string;
  enabled: number;
  comment: string;
  readonly: number;
  browsable: number;
  abe: number;
  audit: string;
  options: string;
  share_acl: string | null;
}

const record = (r: SmbShareRow): SmbShareRecord => ({
  id: r.id,
  purpose: r.purpose,
  name: r.name,
  path: r.path,
  enabled: bool(r.enabled),
  comment: r.comment,
  readonly: bool(r.readonly),
  browsable: bool(r.browsable),
  access_based_share_enumeration: bool(r.abe),
  audit: fromJsonColumn(r.audit, { enable: false, watch_list: [], ignore_list: [] }),
  options: fromJsonColumn(r.options, {}),
  share_acl: r.share_acl === null ? null : fromJsonColumn(r.share_acl, null),
});

/** The columns after `id`, in the table's order, as the statements bind them. */
const columns = (s: NewSmbShare) =>
  [
    s.purpose,
    s.name,
    s.path,
    s.enabled ? 1 : 0,
    s.comment,
    s.readonly ? 1 : 0,
    s.browsable ? 1 : 0,
    s.access_based_share_enumeration ? 1 : 0,
    toJsonColumn(s.audit),
    toJsonColumn(s.options),
    s.share_acl === null ? null : toJsonColumn(s.share_acl),
  ] as const;

export function listSmbShares(db: Database): SmbShareRecord[] {
  return (sql(db, 'SELECT * FROM smb_shares ORDER BY id').all() as SmbShareRow[]).map(record);
}

export function findSmbShare(db: Database, id: number): SmbShareRecord | undefined {
  const row = sql(db, 'SELECT * FROM smb_shares WHERE id = ?').get(id) as SmbShareRow | undefined;
  return row && record(row);
}

export function insertSmbShare(db: Database, s: NewSmbShare): number {
  const info = sql(
    db,
    `INSERT INTO smb_shares (purpose, name, path, enabled, comment, readonly, browsable, abe, audit, options, share_acl)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...columns(s));
  return Number(info.lastInsertRowid);
}

/** Rewrites every field in one statement, so a reader sees the old share or the new one. */
export function updateSmbShare(db: Database, s: SmbShareRecord): void {
  sql(
    db,
    `UPDATE smb_shares SET purpose = ?, name = ?, path = ?, enabled = ?, comment = ?, readonly = ?, browsable = ?,
       abe = ?, audit = ?, options = ?, share_acl = ? WHERE id = ?`,
  ).run(...columns(s), s.id);
}

export function deleteSmbShare(db: Database, id: number): void {
  sql(db, 'DELETE FROM smb_shares WHERE id = ?').run(id);
}

/** The SMB service's settings changed from a fresh install's (smb-config defaults are the appliance's, not kept here). */
export function readSmbConfigChanges(db: Database): Record<string, unknown> {
  const row = sql(db, 'SELECT config FROM smb_config WHERE id = 1').get() as { config: string } | undefined;
  return fromJsonColumn(row?.config, {});
}

export function writeSmbConfigChanges(db: Database, changes: Record<string, unknown>): void {
  sql(
    db,
    'INSERT INTO smb_config (id, config) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET config = excluded.config',
  ).run(toJsonColumn(changes));
}
