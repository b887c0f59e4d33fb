import * as z from 'zod';
import { crud } from '../crud.js';
import { extendAfter, once, roles } from '../method.js';
import {
  createFilesystem,
  createVolume,
  encryptionOptions,
  poolDatasetContract,
  poolDatasetEntry,
} from '../pool-dataset.js';
import { pydanticTaggedUnion } from '../pydantic-union.js';
import { service } from '../service.js';

// What 26.0 changed in the pool.dataset.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/pool_dataset.py
// stable/26:MW/api/v26_0_0/pool_dataset.py`, and pool.py for the encryption options create takes):
// - PoolDatasetEntry gains `tier: TierInfo | None` (MW/api/v26_0_0/pool_dataset.py:88-93). It is filled
//   only while ZFS tiering is enabled (MW/plugins/pool_/dataset_query_utils.py:965-966; tiering is off
//   on a fresh install, alembic/versions/26.0/2026-04-13_00-00_add_zfs_tier_config.py:23) and the
//   emulator has no tiering, so its entries carry none, as 26's do with tiering off.
// - PoolCreateEncryptionOptions.pbkdf2iters: at least and by default 1,300,000 (MW/api/v26_0_0/pool.py:142-144),
//   350,000 and 100,000 in 25.10.1 (MW/api/v25_10_1/pool.py).
// - pool.dataset.create's `data` is discriminated by `type`, FILESYSTEM when absent
//   (MW/api/v26_0_0/pool_dataset.py:663-676): its errors name the tag, not the model.
// - update (its encryption_options Excluded, :601-609), delete: unchanged. Every other change is to
//   methods stor does not serve (encryption_algorithm_choices removed, get_quota's result, …).

/** StorageTier (MW/api/v26_0_0/common.py:13). */
const storageTier = once(() => z.enum(['REGULAR', 'PERFORMANCE']));

/** TierInfo (MW/api/v26_0_0/zfs_tier.py:127-132); its rewrite job entry left open, since the emulator runs none. */
export const tierInfo = once(() =>
  z.object({ tier_type: storageTier(), tier_job: z.record(z.string(), z.unknown()).nullable().default(null) }),
);

/** PoolDatasetEntry in 26: `tier` beside `locked`, NotRequired as every field (ForUpdateMetaclass). */
export const poolDatasetEntry26 = once(() =>
  extendAfter(poolDatasetEntry(), 'locked', { tier: tierInfo().nullable().optional() }),
);

/** PoolCreateEncryptionOptions in 26 (MW/api/v26_0_0/pool.py:134-162). */
export const encryptionOptions26 = once(() =>
  encryptionOptions().extend({ pbkdf2iters: z.int().min(1300000).default(1300000) }),
);

// Built on first use, as every schema here: at load it would cost every command that imports the
// contract the construction (and a parse) of both releases' encryption options.
const withEncryption26 = once(() => ({
  encryption_options: encryptionOptions26().default(() => encryptionOptions26().parse({})),
}));

/** PoolDatasetCreateArgs.data in 26: `Field(discriminator='type')`, type FILESYSTEM when left out. */
export const poolDatasetCreate26 = once(() =>
  pydanticTaggedUnion(
    'type',
    { FILESYSTEM: createFilesystem().extend(withEncryption26()), VOLUME: createVolume().extend(withEncryption26()) },
    'FILESYSTEM',
  ),
);

const datasets = crud(poolDatasetEntry26, () => z.string(), {
  read: roles('DATASET_READ'),
  write: roles('DATASET_WRITE'),
});
const base = poolDatasetContract;

/** The pool.dataset.* entries 26.0 changed; pool.dataset.delete is 25.10.1's. */
export const poolDatasetContract26 = service('pool.dataset', {
  query: datasets.query(base['pool.dataset.query'].summary),
  get_instance: datasets.get_instance(base['pool.dataset.get_instance'].summary),
  create: datasets.create(base['pool.dataset.create'].summary, 'data', poolDatasetCreate26, poolDatasetEntry26),
  update: datasets.update(
    base['pool.dataset.update'].summary,
    'data',
    () => base['pool.dataset.update'].params[1].schema,
    poolDatasetEntry26,
  ),
});
