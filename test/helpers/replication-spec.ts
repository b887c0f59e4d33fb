import type { LocalReplicationSpec } from '../../src/core/appliance/replication/plan.js';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { openTestAppliance, type TestAppliance } from './appliance.js';

/** The naming schema the replication tests' snapshots are named with. */
export const REPLICATION_SCHEMA = 'auto-%Y-%m-%d_%H-%M';

/** A local push replication of tank/src into tank/dst by REPLICATION_SCHEMA; `over` changes it. */
export const replicationSpec = (over: Partial<LocalReplicationSpec> = {}): LocalReplicationSpec => ({
  sourceDatasets: ['tank/src'],
  targetDataset: 'tank/dst',
  recursive: false,
  exclude: [],
  namingSchemas: [REPLICATION_SCHEMA],
  nameRegex: null,
  retentionPolicy: 'NONE',
  lifetime: null,
  allowFromScratch: false,
  readonly: 'IGNORE',
  ...over,
});

/**
 * replication.create's entry for a LOCAL PUSH of tank/src into tank/dst, run by hand, with no
 * retention on the target: bound to snapshot task 1 unless `over` says otherwise.
 */
export const localPush = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'push',
  direction: 'PUSH',
  transport: 'LOCAL',
  source_datasets: ['tank/src'],
  target_dataset: 'tank/dst',
  recursive: false,
  auto: false,
  retention_policy: 'NONE',
  periodic_snapshot_tasks: [1],
  ...over,
});

/** The instant at which the appliance's wall clock (America/Los_Angeles, UTC-8 in January) reads 2024-01-05 HH:MM. */
export const la = (hour: number, minute = 0) => Date.UTC(2024, 0, 5, hour + 8, minute, 0);
/** The REPLICATION_SCHEMA name of a snapshot taken at `hour`:00 of that day. */
export const snapshotName = (hour: number) => `auto-2024-01-05_${String(hour).padStart(2, '0')}-00`;

/** A 25.10.1 appliance with `datasets` made through pool.dataset.create. */
export async function replicationAppliance(datasets = ['tank/src']): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' });
  for (const d of datasets) await t.call(t.admin, 'pool.dataset.create', { name: d });
  return t;
}

/** pool.snapshot.create with REPLICATION_SCHEMA at the appliance's wall clock `hour`:00. */
export async function snapAt(t: TestAppliance, hour: number, dataset = 'tank/src', recursive = false): Promise<void> {
  t.appliance.now = () => la(hour);
  await t.call(t.admin, 'pool.snapshot.create', { dataset, naming_schema: REPLICATION_SCHEMA, recursive });
}

/** The error of class `kind` that `p` fails with; fails the test if it succeeds or fails otherwise. */
export async function failureOf<E extends Error>(p: Promise<unknown>, kind: new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof kind) return err;
    throw err;
  }
  throw new Error(`unexpectedly succeeded, where a ${kind.name} was expected`);
}
