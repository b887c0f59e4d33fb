import type { Database } from './sqlite.js';
import { sql } from './statements.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';

/**
 * A row of `nfs_shares`: an NFS share as 25.10.1 stores it (MW/plugins/nfs.py:409-425, `sharing_nfs_share`),
 * its lists as lists (25.10.1 joins networks and hosts with spaces, `compress`, :960-966, and splits
 * them again in `extend`, :953-958: the same lists, since neither may hold a space).
 */
export interface NfsShareRecord {
  id: number;
  path: string;
  aliases: string[];
  comment: string;
  networks: string[];
  hosts: string[];
  ro: boolean;
  maproot_user: string | null;
  maproot_group: string | null;
  mapall_user: string | null;
  mapall_group: string | null;
  security: ('SYS' | 'KRB5' | 'KRB5I' | 'KRB5P')[];
  enabled: boolean;
  expose_snapshots: boolean;
}

interface NfsShareRow {
  id: number;
  path: string;
  aliases: string;
  comment: string;
  networks: string;
  hosts: string;
  ro: number;
  maproot_user: string | null;
  maproot_group: string | null;
  mapall_user: string | null;
  mapall_group: string | null;
  security: string;
  enabled: number;
  expose_snapshots: number;
}

const record = (r: NfsShareRow): NfsShareRecord => ({
  ...r,
  aliases: fromJsonColumn(r.aliases, []),
  networks: fromJsonColumn(r.networks, []),
  hosts: fromJsonColumn(r.hosts, []),
  ro: bool(r.ro),
  security: fromJsonColumn(r.security, []),
  enabled: bool(r.enabled),
  expose_snapshots: bool(r.expose_snapshots),
});

export function listNfsShares(db: Database): NfsShareRecord[] {
  return (sql(db, 'SELECT * FROM nfs_shares ORDER BY id').all() as NfsShareRow[]).map(record);
}

const columns = (s: Omit<NfsShareRecord, 'id'>) => [
  s.path,
  toJsonColumn(s.aliases),
  s.comment,
  toJsonColumn(s.networks),
  toJsonColumn(s.hosts),
  s.ro ? 1 : 0,
  s.maproot_user,
  s.maproot_group,
  s.mapall_user,
  s.mapall_group,
  toJsonColumn(s.security),
  s.enabled ? 1 : 0,
  s.expose_snapshots ? 1 : 0,
];

/** Inserts a share; answers its id. */
export function insertNfsShare(db: Database, s: Omit<NfsShareRecord, 'id'>): number {
  const info = sql(
    db,
    `INSERT INTO nfs_shares (path, aliases, comment, networks, hosts, ro, maproot_user, maproot_group,
       mapall_user, mapall_group, security, enabled, expose_snapshots) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...columns(s));
  return Number(info.lastInsertRowid);
}

export function updateNfsShare(db: Database, s: NfsShareRecord): void {
  sql(
    db,
    `UPDATE nfs_shares SET path = ?, aliases = ?, comment = ?, networks = ?, hosts = ?, ro = ?, maproot_user = ?,
       maproot_group = ?, mapall_user = ?, mapall_group = ?, security = ?, enabled = ?, expose_snapshots = ? WHERE id = ?`,
  ).run(...columns(s), s.id);
}

export function deleteNfsShares(db: Database, ids: readonly number[]): void {
  const del = sql(db, 'DELETE FROM nfs_shares WHERE id = ?');
  for (const id of ids) del.run(id);
}

/** The one row of `nfs_config`: the NFS service's stored settings (MW/plugins/nfs.py:66-82, `services_nfs`). */
export interface NfsConfigRecord {
  /** Null: the number of nfsd is managed (MW/plugins/nfs.py:194-203). */
  servers: number | null;
  allow_nonroot: boolean;
  protocols: ('NFSV3' | 'NFSV4')[];
  v4_krb: boolean;
  v4_domain: string;
  bindip: string[];
  mountd_port: number | null;
  rpcstatd_port: number | null;
  rpclockd_port: number | null;
  mountd_log: boolean;
  statd_lockd_log: boolean;
  userd_manage_gids: boolean;
  rdma: boolean;
}

interface NfsConfigRow {
  servers: number | null;
  allow_nonroot: number;
  protocols: string;
  v4_krb: number;
  v4_domain: string;
  bindip: string;
  mountd_port: number | null;
  rpcstatd_port: number | null;
  rpclockd_port: number | null;
  mountd_log: number;
  statd_lockd_log: number;
  userd_manage_gids: number;
  rdma: number;
}

export function readNfsConfig(db: Database): NfsConfigRecord {
  const r = sql(db, 'SELECT * FROM nfs_config WHERE id = 1').get() as NfsConfigRow;
  return {
    servers: r.servers,
    allow_nonroot: bool(r.allow_nonroot),
    protocols: fromJsonColumn(r.protocols, []),
    v4_krb: bool(r.v4_krb),
    v4_domain: r.v4_domain,
    bindip: fromJsonColumn(r.bindip, []),
    mountd_port: r.mountd_port,
    rpcstatd_port: r.rpcstatd_port,
    rpclockd_port: r.rpclockd_port,
    mountd_log: bool(r.mountd_log),
    statd_lockd_log: bool(r.statd_lockd_log),
    userd_manage_gids: bool(r.userd_manage_gids),
    rdma: bool(r.rdma),
  };
}

export function writeNfsConfig(db: Database, c: NfsConfigRecord): void {
  sql(
    db,
    `UPDATE nfs_config SET servers = ?, allow_nonroot = ?, protocols = ?, v4_krb = ?, v4_domain = ?, bindip = ?,
       mountd_port = ?, rpcstatd_port = ?, rpclockd_port = ?, mountd_log = ?, statd_lockd_log = ?,
       userd_manage_gids = ?, rdma = ? WHERE id = 1`,
  ).run(
    c.servers,
    c.allow_nonroot ? 1 : 0,
    toJsonColumn(c.protocols),
    c.v4_krb ? 1 : 0,
    c.v4_domain,
    toJsonColumn(c.bindip),
    c.mountd_port,
    c.rpcstatd_port,
    c.rpclockd_port,
    c.mountd_log ? 1 : 0,
    c.statd_lockd_log ? 1 : 0,
    c.userd_manage_gids ? 1 : 0,
    c.rdma ? 1 : 0,
  );
}
