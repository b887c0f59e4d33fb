import * as z from 'zod';
import { crud } from '../crud.js';
import { nonEmptyStr, once, roles } from '../method.js';
import {
  createTemplate,
  namingSchema,
  poolSnapshotContract,
  poolSnapshotCreateEntry,
  poolSnapshotEntry,
} from '../pool-snapshot.js';
import { pydanticUnion } from '../pydantic-union.js';
import { service } from '../service.js';

// What 26.0 changed in the pool.snapshot.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/pool_snapshot.py
// stable/26:MW/api/v26_0_0/pool_snapshot.py`): PoolSnapshotCreateTemplate takes `suspend_vms`
// (default false, MW/api/v26_0_0/pool_snapshot.py:116), which suspends the VMs on the dataset around
// the snapshot (MW/plugins/pool_/snapshot.py:300, 322-326 at stable/26); the emulator runs no VMs, so
// there is nothing to suspend and 25.10.1's handler serves it. Property values become LongString
// (:48-49, :170), a string still; rename's `recursive` (:273) is for a method stor does not serve.
//
// PoolSnapshotEntry's model is 25.10.1's field for field (:88-104), but 26.0's plugin builds the
// entries another way (MW/plugins/pool_/snapshot.py:94-290 at TS-26.0.0-BETA.3, over
// MW/plugins/zfs/snapshot_query_impl.py), so query and get_instance are served from entries of
// their own (methods/pool-snapshot.ts `query26`): `properties` only as `extra.properties` names
// them, `holds` on every entry, the user properties read for `extra.retention` alone.

const createTemplate26 = once(() => ({ ...createTemplate(), suspend_vms: z.boolean().default(false) }));

/** `data: PoolSnapshotCreateWithName | PoolSnapshotCreateWithSchema` in 26, no discriminator. */
export const poolSnapshotCreate26 = once(() =>
  pydanticUnion({
    PoolSnapshotCreateWithName: z.strictObject({ ...createTemplate26(), name: nonEmptyStr() }),
    PoolSnapshotCreateWithSchema: z.strictObject({ ...createTemplate26(), naming_schema: namingSchema() }),
  }),
);

const snapshots = crud(poolSnapshotEntry, () => z.string(), {
  read: roles('SNAPSHOT_READ'),
  write: roles('SNAPSHOT_WRITE'),
});

/** The pool.snapshot.* entries 26.0 changed. */
export const poolSnapshotContract26 = service('pool.snapshot', {
  query: snapshots.query(poolSnapshotContract['pool.snapshot.query'].summary),
  get_instance: snapshots.get_instance(poolSnapshotContract['pool.snapshot.get_instance'].summary),
  create: snapshots.create(
    poolSnapshotContract['pool.snapshot.create'].summary,
    'data',
    poolSnapshotCreate26,
    poolSnapshotCreateEntry,
  ),
});
