import { createHash } from 'node:crypto';
import { statSync, statfsSync } from 'node:fs';
import type { PoolEntry } from '../../contract/pool.js';
import { listPoolRecords, type PoolRecord } from '../../store/pools.js';
import type { Appliance } from '../appliance.js';
import { sandboxPath } from '../files/places.js';
import { bytesBelow } from '../files/tree-walk.js';

/*
 * pool.query's entries (`pool_normalize_info`, MW/plugins/pool_/pool.py:57-124) for the
 * emulator's pools, which are directories, not zpools. Measured: `free` is what the file system
 * under the state directory has available, `allocated` the bytes of the pool's files, `size` their
 * sum (so size = allocated + free, as for a pool without reservations). Synthetic, and said so in
 * docs/RELEASES.md "Emulator behaviours": a single-disk stripe (one DISK vdev in `data`, the layout
 * `pool.create` makes of one disk), the disk's names, the guids (stable per state directory and
 * name), ashift 12, no scrub ever run, no errors. A pool whose directory is gone answers as
 * 25.10.1 answers a pool in its database that ZFS does not have: OFFLINE, not healthy, no
 * topology and no sizes (MW/plugins/pool_/pool.py:63-91).
 */

/** A guid as ZFS shows one: an unsigned 64-bit number in decimal, here derived from what it names. */
function guidOf(appliance: Appliance, what: string): string {
  return createHash('sha256').update(`${appliance.store.stateDir}\0${what}`).digest().readBigUInt64BE().toString();
}

/** A partition uuid for the synthetic disk, formatted as `/dev/disk/by-partuuid/` names them. */
function partuuidOf(appliance: Appliance, pool: string): string {
  const h = createHash('sha256').update(`${appliance.store.stateDir}\0partuuid\0${pool}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The pool property `autotrim` as both paths give it (MW/plugins/pool_/pool.py:84-89). */
const AUTOTRIM_OFF = { parsed: 'off', rawvalue: 'off', source: 'DEFAULT', value: 'off' };

/**
 * A scan that never ran: py-libzfs's scan dict with every value null on 25.10.x (MW/api/v25_10_1/pool.py:66-79);
 * `null` on 26 (MW/plugins/zpool/query_impl.py:67-79), whose PoolScan fields are required.
 */
const NO_SCAN = {
  function: null,
  state: null,
  start_time: null,
  end_time: null,
  percentage: null,
  bytes_to_process: null,
  bytes_processed: null,
  bytes_issued: null,
  pause: null,
  errors: null,
  total_secs_left: null,
};

/** What `pool_normalize_info` answers before (or without) zfs.pool.query's pool (MW/plugins/pool_/pool.py:63-90). */
function offline(p: PoolRecord, guid: string, isUpgraded: boolean): PoolEntry {
  return {
    id: p.id,
    name: p.name,
    guid,
    status: 'OFFLINE',
    path: `/mnt/${p.name}`,
    scan: null,
    expand: null,
    is_upgraded: isUpgraded,
    healthy: false,
    warning: false,
    status_code: null,
    status_detail: null,
    size: null,
    allocated: null,
    free: null,
    freeing: null,
    dedup_table_size: null,
    dedup_table_quota: null,
    fragmentation: null,
    size_str: null,
    allocated_str: null,
    free_str: null,
    freeing_str: null,
    autotrim: AUTOTRIM_OFF,
    topology: null,
  };
}

/** The one data vdev, as py-libzfs's ZFSVdev and ZFSVdevStats give it, with transform_topology's device, disk and unavail_disk. */
function diskVdev(appliance: Appliance, pool: string, size: number, allocated: number) {
  const partuuid = partuuidOf(appliance, pool);
  return {
    name: partuuid,
    type: 'DISK',
    path: `/dev/disk/by-partuuid/${partuuid}`,
    guid: guidOf(appliance, `vdev\0${pool}`),
    status: 'ONLINE',
    stats: {
      timestamp: Number(process.hrtime.bigint()),
      read_errors: 0,
      write_errors: 0,
      checksum_errors: 0,
      ops: [0, 0, 0, 0, 0, 0, 0],
      bytes: [0, 0, 0, 0, 0, 0, 0],
      size,
      allocated,
      fragmentation: 0,
      self_healed: 0,
      configured_ashift: 12,
      logical_ashift: 9,
      physical_ashift: 12,
    },
    children: [],
    device: 'sda1',
    disk: 'sda',
    unavail_disk: null,
  };
}

async function entryOf(appliance: Appliance, p: PoolRecord, isUpgraded: boolean): Promise<PoolEntry> {
  const guid = guidOf(appliance, `pool\0${p.name}`);
  const host = sandboxPath(appliance, `/mnt/${p.name}`).host;
  let free: number;
  try {
    if (!statSync(host).isDirectory()) return offline(p, guid, isUpgraded);
    const fs = statfsSync(host);
    free = fs.bavail * fs.bsize;
  } catch {
    return offline(p, guid, isUpgraded);
  }
  const allocated = await bytesBelow(host, new Set());
  const size = allocated + free;
  return {
    ...offline(p, guid, isUpgraded),
    status: 'ONLINE',
    scan: appliance.release.poolEntryAllSed ? null : NO_SCAN,
    healthy: true,
    status_code: 'OK',
    size,
    allocated,
    free,
    freeing: 0,
    dedup_table_size: 0,
    dedup_table_quota: 'auto',
    fragmentation: '0',
    size_str: String(size),
    allocated_str: String(allocated),
    free_str: String(free),
    freeing_str: '0',
    topology: {
      data: [diskVdev(appliance, p.name, size, allocated)],
      log: [],
      cache: [],
      spare: [],
      special: [],
      dedup: [],
    },
  };
}

/**
 * Every pool's entry. `extra.is_upgraded` asks pool_extend to say whether every feature is
 * enabled (MW/plugins/pool_/pool.py:135-137); the emulator's pools are always current.
 */
export async function poolEntries(appliance: Appliance, options: Record<string, unknown>): Promise<PoolEntry[]> {
  const extra = options.extra as { is_upgraded?: unknown } | undefined;
  const isUpgraded = extra?.is_upgraded === true;
  const { store } = appliance;
  const rows = store.read(() => listPoolRecords(store.db));
  const entries = await Promise.all(rows.map((p) => entryOf(appliance, p, isUpgraded)));
  return appliance.release.poolEntryAllSed ? entries.map(withAllSed) : entries;
}

/**
 * 26's entry: `all_sed` after `guid` (MW/api/v26_0_0/pool.py:40), the database's vol_all_sed, false as
 * pool.create leaves it without SED disks (:271), which the emulator never has.
 */
function withAllSed(entry: PoolEntry): PoolEntry {
  const { id, name, guid, ...rest } = entry;
  return { id, name, guid, all_sed: false, ...rest } as PoolEntry;
}
