import * as z from 'zod';
import { crud } from '../crud.js';
import { once, roles } from '../method.js';
import {
  POOL_SNAPSHOTTASK_SUMMARIES,
  SNAPSHOT_TASK_DELETE_OPTIONS,
  poolSnapshotTaskCreate,
  poolSnapshotTaskEntry,
  poolSnapshotTaskUpdate,
} from '../pool-snapshottask.js';
import { service } from '../service.js';

// What 26.0 changed in pool.snapshottask.* (`git diff TS-25.10.1:MW/api/v25_10_1/pool_snapshottask.py
// stable/26:MW/api/v26_0_0/pool_snapshottask.py`): the entry is declared first, PeriodicSnapshotTaskEntry
// (stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57), so its fields come in a new order: `id` first,
// `vmware_sync` then `state` last. Create, update, delete and the other methods take and answer the
// same values as 25.10.1's; delete is listed because its handler differs (it looks the task up first,
// stable/26 MW/plugins/snapshot.py:215-216).

/** PeriodicSnapshotTaskEntry in 26: id, the task's fields, vmware_sync, state. */
const periodicSnapshotTaskEntry26 = once(() => {
  const { id, state, vmware_sync, ...fields } = poolSnapshotTaskEntry().shape;
  return z.object({ id, ...fields, vmware_sync, state });
});

const tasks = crud(periodicSnapshotTaskEntry26, () => z.int(), {
  read: roles('SNAPSHOT_TASK_READ'),
  write: roles('SNAPSHOT_TASK_WRITE'),
});

/** The pool.snapshottask.* entries 26.0 changed (and delete); the rest are 25.10.1's. */
export const poolSnapshotTaskContract26 = service('pool.snapshottask', {
  query: tasks.query(POOL_SNAPSHOTTASK_SUMMARIES.query),
  get_instance: tasks.get_instance(POOL_SNAPSHOTTASK_SUMMARIES.get_instance),
  create: tasks.create(POOL_SNAPSHOTTASK_SUMMARIES.create, 'data', poolSnapshotTaskCreate, periodicSnapshotTaskEntry26),
  update: tasks.update(POOL_SNAPSHOTTASK_SUMMARIES.update, 'data', poolSnapshotTaskUpdate, periodicSnapshotTaskEntry26),
  delete: tasks.delete(POOL_SNAPSHOTTASK_SUMMARIES.delete, () => z.literal(true), {
    options: SNAPSHOT_TASK_DELETE_OPTIONS,
  }),
});
