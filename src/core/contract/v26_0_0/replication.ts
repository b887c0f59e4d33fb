import * as z from 'zod';
import { once } from '../method.js';
import { pydanticModel } from '../pydantic-model.js';
import { poolSnapshotTaskDbEntry26, replicationContract, replicationCrud, replicationEntryOf } from '../replication.js';
import { method, service } from '../service.js';

// What 26.0 changed in replication.* (`git diff TS-25.10.1:MW/api/v25_10_1/replication.py
// stable/26:MW/api/v26_0_0/replication.py`): the entry's bound tasks are 26's PoolSnapshotTaskDBEntry,
// `id` first (stable/26 MW/api/v26_0_0/pool_snapshottask.py:28-57); run takes `options: {really_run}`
// where 25.10.1 took `really_run` itself (replication.py:294-309 there); target_unmatched_snapshots
// answers `dict[str, list[str]]` (:411-418), 25.10.1's model saying `dict[str, str]`. The rest is 25.10.1's.

// On first use: the entry's schema is built lazily, as the contract's are (method.ts defineContract).
const boundTaskKeys = once(() => Object.keys(poolSnapshotTaskDbEntry26().shape));

/** An answer of 25.10.1's handler in 26's shape: each bound task's keys in 26's order. */
export function withBoundTasks26(answer: unknown): unknown {
  const task = (t: unknown) => {
    const r = t as Record<string, unknown>;
    return Object.fromEntries(
      boundTaskKeys()
        .filter((k) => k in r)
        .map((k) => [k, r[k]]),
    );
  };
  const one = (entry: unknown) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
    const e = entry as Record<string, unknown>;
    if (!Array.isArray(e.periodic_snapshot_tasks)) return e;
    return { ...e, periodic_snapshot_tasks: e.periodic_snapshot_tasks.map(task) };
  };
  return Array.isArray(answer) ? answer.map(one) : one(answer);
}

const entry26 = replicationEntryOf(poolSnapshotTaskDbEntry26);
const crud26 = replicationCrud(entry26);
const base = replicationContract;

/** ReplicationRunOptions (stable/26 MW/api/v26_0_0/replication.py:288-293). */
const runOptions = once(() => pydanticModel('ReplicationRunOptions', { really_run: z.boolean().default(true) }));

export const replicationContract26 = service('replication', {
  query: { ...crud26.query, fromBase: withBoundTasks26 },
  get_instance: { ...crud26.get_instance, fromBase: withBoundTasks26 },
  create: { ...crud26.create, fromBase: withBoundTasks26 },
  update: { ...crud26.update, fromBase: withBoundTasks26 },
  run: method({
    summary: base['replication.run'].summary,
    access: base['replication.run'].access,
    params: () => [
      { name: 'id', schema: z.int() },
      { name: 'options', schema: runOptions(), default: () => ({ really_run: true }) },
    ],
    result: () => z.null(),
    job: true,
  }),
  target_unmatched_snapshots: method({
    summary: base['replication.target_unmatched_snapshots'].summary,
    access: base['replication.target_unmatched_snapshots'].access,
    params: () => base['replication.target_unmatched_snapshots'].params,
    result: () => z.record(z.string(), z.array(z.string())),
  }),
});
