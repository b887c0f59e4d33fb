import * as z from 'zod';
import { crud } from '../crud.js';
import { ejsonDate } from '../ejson.js';
import { once, roles } from '../method.js';
import { poolContract, poolEntry } from '../pool.js';
import { service } from '../service.js';

// What 26.0 changed in the pool.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/pool.py
// stable/26:MW/api/v26_0_0/pool.py`): PoolEntry gains `all_sed` after `guid` (MW/api/v26_0_0/pool.py:40,
// the database's vol_all_sed, pool.create's `all_sed` default false at :271) and its `scan` is typed
// PoolScan (:41-45, MW/api/v26_0_0/pool_scrub.py:94-105) instead of a dict; pool_normalize_info
// gives `null` for a pool no scan ever ran on (MW/plugins/zpool/query_impl.py:67-79).

/** PoolScan (MW/api/v26_0_0/pool_scrub.py:94-105); its datetimes travel as EJSON dates. */
const poolScan = once(() =>
  z.object({
    function: z.enum(['RESILVER', 'SCRUB']),
    state: z.enum(['SCANNING', 'FINISHED', 'CANCELED']),
    start_time: ejsonDate(),
    end_time: ejsonDate().nullable(),
    percentage: z.number(),
    bytes_to_process: z.int(),
    bytes_processed: z.int(),
    bytes_issued: z.int(),
    pause: ejsonDate().nullable(),
    errors: z.int(),
    total_secs_left: z.int().nullable(),
  }),
);

/** PoolEntry in 26 (MW/api/v26_0_0/pool.py:37-45), in its field order. */
export const poolEntry26 = once(() => {
  const { id, name, guid, status, path, ...rest } = poolEntry().shape;
  return z.object({
    id,
    name,
    guid,
    all_sed: z.boolean().nullable(),
    status,
    path,
    ...rest,
    scan: poolScan().nullable(),
  });
});

const pools = crud(poolEntry26, () => z.int(), { read: roles('POOL_READ'), write: roles('POOL_WRITE') });

/** The pool.* entries 26.0 changed. */
export const poolContract26 = service('pool', {
  query: pools.query(poolContract['pool.query'].summary),
  get_instance: pools.get_instance(poolContract['pool.get_instance'].summary),
});
