import type { LocalReplicationSpec } from '../../src/core/appliance/replication/plan.js';

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
