import type { NfsShareEntry } from '../../contract/sharing-nfs.js';
import type { SharingNfsEntry26 } from '../../contract/v26_0_0/sharing-nfs.js';
import { listNfsShares, type NfsShareRecord } from '../../store/shares-nfs.js';
import type { Appliance } from '../appliance.js';
import { datasetOfPath } from './share-path.js';

/*
 * sharing.nfs.query's entries: the rows as `extend` gives them (MW/plugins/nfs.py:953-958) with
 * `locked` as SharingTaskService's extend adds it (MW/service/sharing_service.py:23-43, 92-106):
 * whether the path lies in a locked dataset, which in the emulator none is; null when the query's
 * options say `extra.retrieve_locked_info: false`, or `extra.select` leaves `locked` out.
 */

/** Python's truth of a JSON value: false, 0, '', null, [] and {} are false. */
const pyTruthy = (v: unknown) =>
  !(v === false || v === 0 || v === '' || v === null || (typeof v === 'object' && Object.keys(v).length === 0));

/**
 * `sharing_task_extend_context`'s `retrieve_locked_info` (MW/service/sharing_service.py:23-43), read
 * from the query's `extra` (what datastore.query hands the context, MW/plugins/datastore/read.py:156-160):
 * false when `extra.select` leaves `locked` out, else `extra.retrieve_locked_info`, true by default.
 */
function retrievesLockedInfo(options: unknown): boolean {
  const extra = ((options ?? {}) as { extra?: { retrieve_locked_info?: unknown; select?: unknown } }).extra ?? {};
  if (Array.isArray(extra.select) && extra.select.length > 0) {
    const fields = extra.select.map((e: unknown) => (Array.isArray(e) ? (e[0] as unknown) : e));
    if (!fields.includes('locked')) return false;
  }
  const asked = extra.retrieve_locked_info;
  return asked === undefined || pyTruthy(asked);
}

const entry25 = (r: NfsShareRecord, locked: boolean | null): NfsShareEntry => ({
  id: r.id,
  path: r.path,
  aliases: r.aliases,
  comment: r.comment,
  networks: r.networks,
  hosts: r.hosts,
  ro: r.ro,
  maproot_user: r.maproot_user,
  maproot_group: r.maproot_group,
  mapall_user: r.mapall_user,
  mapall_group: r.mapall_group,
  security: r.security,
  enabled: r.enabled,
  locked,
  expose_snapshots: r.expose_snapshots,
});

/** The entries as 25.10.1 answers them, for a query with `options`. */
export function nfsShareEntries(appliance: Appliance, options: unknown): NfsShareEntry[] {
  const locked = retrievesLockedInfo(options) ? false : null;
  return listNfsShares(appliance.store.db).map((r) => entry25(r, locked));
}

/**
 * The entries as 26.0 answers them: `dataset` and `relative_path` after `path` (the path split at
 * its dataset's mountpoint, as create and update store it: stable/26 MW/plugins/nfs.py:565-568; the
 * emulator splits it when it answers, from the datasets as they are), and `tier` null, as on a
 * system without the tiering licence (stable/26 MW/service/sharing_service.py:123-127, 222-223).
 */
export function nfsShareEntries26(appliance: Appliance, options: unknown): SharingNfsEntry26[] {
  return nfsShareEntries(appliance, options).map(({ id, path, ...rest }) => ({
    id,
    path,
    ...datasetOfPath(appliance, path),
    ...rest,
    tier: null,
  }));
}
