import * as z from 'zod';
import { crud } from './crud.js';
import { nonEmptyStr, once, roles, str } from './method.js';
import { pydanticUnion } from './pydantic-union.js';
import { refineNamingSchema } from './snapshot-naming-schema.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/pool_snapshot.py`; service `MW/plugins/pool_/snapshot.py` (role_prefix SNAPSHOT,
// role_separate_delete: create SNAPSHOT_WRITE, delete SNAPSHOT_DELETE), behaviour in
// `MW/plugins/zfs_/snapshot.py` and `snapshot_actions.py`.

/** PoolSnapshotEntryPropertyFields. */
export const snapshotProperty = once(() =>
  z.object({
    value: z.string(),
    rawvalue: z.string(),
    source: z.enum(['NONE', 'DEFAULT', 'LOCAL', 'TEMPORARY', 'INHERITED', 'RECEIVED']),
    parsed: z.unknown(),
  }),
);

const entryFields = once(() => ({
  id: z.string(),
  properties: z.record(z.string(), snapshotProperty()),
  pool: z.string(),
  name: z.string(),
  type: z.literal('SNAPSHOT'),
  snapshot_name: z.string(),
  dataset: z.string(),
  createtxg: z.string(),
}));

/** PoolSnapshotEntry; `holds` only with `extra.holds`, `retention` only with `extra.retention`. */
export const poolSnapshotEntry = once(() =>
  z.object({
    ...entryFields(),
    holds: z.object({ truenas: z.int().optional() }).optional(),
    retention: z.unknown().optional(),
  }),
);
export type PoolSnapshotEntry = z.output<ReturnType<typeof poolSnapshotEntry>>;

/** PoolSnapshotCreateUpdateEntry: holds and retention are Excluded. */
export const poolSnapshotCreateEntry = once(() => z.object(entryFields()));

/** PoolSnapshotCreateTemplate's fields and defaults. */
export const createTemplate = once(() => ({
  dataset: nonEmptyStr(),
  recursive: z.boolean().default(false),
  exclude: z.array(str()).default([]),
  vmware_sync: z.boolean().default(false),
  properties: z.record(z.string(), z.unknown()).default({}),
}));

/** SnapshotNameSchema (MW/api/base/types/string.py:74): zettarepl's `validate_snapshot_naming_schema`. */
export const namingSchema = once(() => nonEmptyStr().superRefine(refineNamingSchema));

/** `data: PoolSnapshotCreateWithName | PoolSnapshotCreateWithSchema`, no discriminator. */
export const poolSnapshotCreate = once(() =>
  pydanticUnion({
    PoolSnapshotCreateWithName: z.strictObject({ ...createTemplate(), name: nonEmptyStr() }),
    PoolSnapshotCreateWithSchema: z.strictObject({ ...createTemplate(), naming_schema: namingSchema() }),
  }),
);
export type PoolSnapshotCreate = z.output<ReturnType<typeof poolSnapshotCreate>>;

const deleteOptions = once(() =>
  z.strictObject({ defer: z.boolean().default(false), recursive: z.boolean().default(false) }),
);

const rollbackOptions = once(() =>
  z.strictObject({
    recursive: z.boolean().default(false),
    recursive_clones: z.boolean().default(false),
    force: z.boolean().default(false),
    recursive_rollback: z.boolean().default(false),
  }),
);
export type PoolSnapshotRollbackOptions = z.output<ReturnType<typeof rollbackOptions>>;

const snapshots = crud(poolSnapshotEntry, () => z.string(), {
  read: roles('SNAPSHOT_READ'),
  write: roles('SNAPSHOT_WRITE'),
});

export const poolSnapshotContract = service('pool.snapshot', {
  query: snapshots.query('List snapshots (filters, options), e.g. [["dataset", "=", "tank/a"]]; ids are DATASET@NAME.'),
  get_instance: snapshots.get_instance('One snapshot by id (DATASET@NAME).'),
  create: snapshots.create(
    'Take a snapshot {dataset, name | naming_schema, recursive, exclude, properties}.',
    'data',
    poolSnapshotCreate,
    poolSnapshotCreateEntry,
  ),
  delete: snapshots.delete(
    'Destroy snapshot DATASET@NAME {defer, recursive: the same name on every child dataset too}.',
    () => z.literal(true),
    {
      access: roles('SNAPSHOT_DELETE'),
      options: { schema: deleteOptions, default: () => ({ defer: false, recursive: false }) },
    },
  ),
  // MW/plugins/pool_/snapshot.py:22-25 (SNAPSHOT_WRITE and DATASET_WRITE).
  clone: method({
    summary: 'Make a new dataset from snapshot {snapshot: DATASET@NAME, dataset_dst, dataset_properties}.',
    access: roles('SNAPSHOT_WRITE', 'DATASET_WRITE'),
    params: () => [
      {
        name: 'data',
        schema: z.strictObject({
          snapshot: nonEmptyStr(),
          dataset_dst: nonEmptyStr(),
          dataset_properties: z.record(z.string(), z.unknown()).default({}),
        }),
      },
    ],
    result: () => z.literal(true),
  }),
  // MW/plugins/pool_/snapshot.py:31-47 (SNAPSHOT_WRITE): the `truenas` hold tag.
  hold: method({
    summary:
      'Hold snapshot DATASET@NAME (the `truenas` tag) so it cannot be destroyed {recursive: the same name on children too}.',
    access: roles('SNAPSHOT_WRITE'),
    params: () => [
      { name: 'id', schema: str() },
      {
        name: 'options',
        schema: z.strictObject({ recursive: z.boolean().default(false) }),
        default: () => ({ recursive: false }),
      },
    ],
    result: () => z.null(),
  }),
  release: method({
    summary:
      "Release every hold on snapshot DATASET@NAME {recursive: those tags on the children's same-named snapshots too}.",
    access: roles('SNAPSHOT_WRITE'),
    params: () => [
      { name: 'id', schema: str() },
      {
        name: 'options',
        schema: z.strictObject({ recursive: z.boolean().default(false) }),
        default: () => ({ recursive: false }),
      },
    ],
    result: () => z.null(),
  }),
  rollback: method({
    summary:
      'Roll a dataset back to snapshot DATASET@NAME {recursive: destroy later snapshots, recursive_rollback: children too}.',
    access: roles('SNAPSHOT_WRITE', 'POOL_WRITE'),
    params: () => [
      { name: 'id', schema: z.string() },
      {
        name: 'options',
        schema: rollbackOptions(),
        default: () => ({ recursive: false, recursive_clones: false, force: false, recursive_rollback: false }),
      },
    ],
    result: () => z.null(),
  }),
});
