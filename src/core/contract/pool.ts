import * as z from 'zod';
import { crud } from './crud.js';
import { PYDANTIC_DICT, modeledAs } from './json-schema.js';
import { once, roles } from './method.js';
import { service } from './service.js';

// `MW/api/v25_10_1/pool.py`; service `MW/plugins/pool_/pool.py` (CRUDService, role_prefix POOL:
// query and get_instance POOL_READ; event_send False, :47-55), entries built by
// `pool_normalize_info` (:57-124) over zfs.pool.query and `pool.transform_topology`
// (MW/plugins/pool_/topology.py:28-66).

const dict = () => modeledAs(z.record(z.string(), z.unknown()), PYDANTIC_DICT);

/** PoolTopology: each list is typed `list` in the model; its vdevs are py-libzfs's, made upper-case by transform_topology. */
const poolTopology = once(() =>
  z.object({
    data: z.array(z.unknown()),
    log: z.array(z.unknown()),
    cache: z.array(z.unknown()),
    spare: z.array(z.unknown()),
    special: z.array(z.unknown()),
    dedup: z.array(z.unknown()),
  }),
);

/** PoolEntry (`MW/api/v25_10_1/pool.py:56-136`), in its field order. */
export const poolEntry = once(() =>
  z.object({
    id: z.int(),
    name: z.string(),
    guid: z.string(),
    status: z.string(),
    path: z.string(),
    scan: dict().nullable(),
    expand: dict().nullable(),
    is_upgraded: z.boolean().optional(),
    healthy: z.boolean(),
    warning: z.boolean(),
    status_code: z.string().nullable(),
    status_detail: z.string().nullable(),
    size: z.int().nullable(),
    allocated: z.int().nullable(),
    free: z.int().nullable(),
    freeing: z.int().nullable(),
    dedup_table_size: z.int().nullable(),
    dedup_table_quota: z.string().nullable(),
    fragmentation: z.string().nullable(),
    size_str: z.string().nullable(),
    allocated_str: z.string().nullable(),
    free_str: z.string().nullable(),
    freeing_str: z.string().nullable(),
    autotrim: dict(),
    topology: poolTopology().nullable(),
  }),
);
export type PoolEntry = z.output<ReturnType<typeof poolEntry>>;

const pools = crud(poolEntry, () => z.int(), { read: roles('POOL_READ'), write: roles('POOL_WRITE') });

export const poolContract = service('pool', {
  query: pools.query('List pools with their status, health, space and topology (filters, options).'),
  get_instance: pools.get_instance('One pool by id.'),
});
