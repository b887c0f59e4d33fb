import * as z from 'zod';
import { once } from '../method.js';
import { poolSnapshotTaskEntry, snapshotTaskCrud, willChangeRetentionFor } from '../pool-snapshottask.js';
import { service } from '../service.js';

// What 26.0 changed in pool.snapshottask.* (`git diff TS-25.10.1:MW/api/v25_10_1/pool_snapshottask.py
// stable/26:MW/api/v26_0_0/pool_snapshottask.py`): the entry is declared first, PeriodicSnapshotTaskEntry
// (stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57), so its fields come in a new order: `id` first,
// `vmware_sync` then `state` last. Create, update, delete and the other methods take and answer the
// same values as 25.10.1's; delete is listed because its handler differs (it looks the task up first,
// stable/26 MW/plugins/snapshot.py:215-216), and the two will_change_retention_for methods because
// theirs answer `{}` for a task whose dataset is gone (stable/26 MW/plugins/snapshot_/task_retention.py:38-45, 69-76).

/** PeriodicSnapshotTaskEntry in 26: id, the task's fields, vmware_sync, state. */
const periodicSnapshotTaskEntry26 = once(() => {
  const { id, state, vmware_sync, ...fields } = poolSnapshotTaskEntry().shape;
  return z.object({ id, ...fields, vmware_sync, state });
});

/** The pool.snapshottask.* entries 26.0 changed (and delete, and will_change_retention_for); the rest are 25.10.1's. */
export const poolSnapshotTaskContract26 = service('pool.snapshottask', {
  ...snapshotTaskCrud(periodicSnapshotTaskEntry26),
  ...willChangeRetentionFor(),
});
