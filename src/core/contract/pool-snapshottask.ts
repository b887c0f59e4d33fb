import * as z from 'zod';
import { crud } from './crud.js';
import { cronFields, cronModel, timeString } from './cron.js';
import { once, roles, str } from './method.js';
import { method, service } from './service.js';
import { refineNamingSchema } from './snapshot-naming-schema.js';

// `MW/api/v25_10_1/pool_snapshottask.py`; service PeriodicSnapshotTaskService (MW/plugins/snapshot.py:40-50):
// a CRUDService with role_prefix SNAPSHOT_TASK, so query and get_instance need SNAPSHOT_TASK_READ,
// create, update and delete SNAPSHOT_TASK_WRITE (MW/main.py:315-337); max_count, max_total_count
// (:301-319) and the two will_change_retention_for methods (MW/plugins/snapshot_/task_retention.py:16-41)
// SNAPSHOT_TASK_READ, run SNAPSHOT_TASK_WRITE (:321-322).

export const LIFETIME_UNITS = ['HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;

/** SnapshotNameSchema (MW/api/base/types/string.py:74): a str zettarepl's validator accepts. */
const snapshotNameSchema = once(() => str().superRefine(refineNamingSchema));

/** PoolSnapshotTaskCron: CronModel with minute "00" and a begin/end window (pool_snapshottask.py:21-27). */
export const poolSnapshotTaskCron = once(() =>
  cronModel({
    ...cronFields({ minute: '00' }),
    begin: timeString().default('00:00'),
    end: timeString().default('23:59'),
  }),
);
export type PoolSnapshotTaskCron = z.output<ReturnType<typeof poolSnapshotTaskCron>>;

/** `PoolSnapshotTaskCron()` as `default_factory` builds it. */
export const DEFAULT_SNAPSHOT_TASK_SCHEDULE: PoolSnapshotTaskCron = {
  minute: '00',
  hour: '*',
  dom: '*',
  month: '*',
  dow: '*',
  begin: '00:00',
  end: '23:59',
};

/** PoolSnapshotTaskCreate's fields, in its order (pool_snapshottask.py:30-51). */
const createFields = () => ({
  dataset: str(),
  recursive: z.boolean(),
  lifetime_value: z.int(),
  lifetime_unit: z.enum(LIFETIME_UNITS),
  enabled: z.boolean(),
  exclude: z.array(str()),
  naming_schema: snapshotNameSchema(),
  allow_empty: z.boolean(),
  schedule: poolSnapshotTaskCron(),
});

/** PoolSnapshotTaskCreate: `dataset` required, the rest with its defaults. */
export const poolSnapshotTaskCreate = once(() => {
  const f = createFields();
  return z.strictObject({
    dataset: f.dataset,
    recursive: f.recursive.default(false),
    lifetime_value: f.lifetime_value.default(2),
    lifetime_unit: f.lifetime_unit.default('WEEK'),
    enabled: f.enabled.default(true),
    exclude: f.exclude.default([]),
    naming_schema: f.naming_schema.default('auto-%Y-%m-%d_%H-%M'),
    allow_empty: f.allow_empty.default(true),
    schedule: f.schedule.default(() => ({ ...DEFAULT_SNAPSHOT_TASK_SCHEDULE })),
  });
});
export type PoolSnapshotTaskCreate = z.output<ReturnType<typeof poolSnapshotTaskCreate>>;

/** PoolSnapshotTaskUpdateWillChangeRetentionFor (ForUpdateMetaclass): every field optional, none defaulted. */
export const poolSnapshotTaskChanges = once(() => z.strictObject(createFields()).partial());
export type PoolSnapshotTaskChanges = z.output<ReturnType<typeof poolSnapshotTaskChanges>>;

/** PoolSnapshotTaskUpdate: the same, and `fixate_removal_date` (pool_snapshottask.py:54-56). */
export const poolSnapshotTaskUpdate = once(() =>
  z.strictObject({ ...createFields(), fixate_removal_date: z.boolean() }).partial(),
);
export type PoolSnapshotTaskUpdate = z.output<ReturnType<typeof poolSnapshotTaskUpdate>>;

/**
 * PoolSnapshotTaskEntry: PoolSnapshotTaskCreate's fields, then DBEntry's `id` and `state` (redeclared
 * `Any` in place), then `vmware_sync` (pool_snapshottask.py:68-80).
 */
export const poolSnapshotTaskEntry = once(() =>
  z.object({
    ...createFields(),
    id: z.int(),
    state: z.unknown(),
    vmware_sync: z.boolean(),
  }),
);
export type PoolSnapshotTaskEntry = z.output<ReturnType<typeof poolSnapshotTaskEntry>>;

/** `dict[str, list[str]]`: dataset → names of its snapshots (task_retention.py:28-37). */
export const retentionChange = once(() => z.record(z.string(), z.array(z.string())));

export const POOL_SNAPSHOTTASK_SUMMARIES = {
  query: 'List periodic snapshot tasks (filters, options); `state` is the task’s last run as zettarepl reports it.',
  get_instance: 'One periodic snapshot task by id.',
  create:
    'Take snapshots of a dataset on a schedule {dataset, recursive, exclude, lifetime_value, lifetime_unit, naming_schema, schedule, allow_empty, enabled}.',
  update: 'Change a periodic snapshot task by id {…, fixate_removal_date}.',
  delete: 'Delete a periodic snapshot task by id {fixate_removal_date}.',
} as const;

/**
 * update/delete_will_change_retention_for, the same values in 25.10.1 and 26.0 (pool_snapshottask.py:139-159);
 * 26.0 lists them because its handlers answer a task whose dataset is gone (stable/26
 * MW/plugins/snapshot_/task_retention.py:38-45, 69-76).
 */
export const willChangeRetentionFor = () => ({
  update_will_change_retention_for: method({
    summary: 'The snapshots an update of the task with {…} would leave to no task’s retention, by dataset.',
    access: roles('SNAPSHOT_TASK_READ'),
    params: () => [
      { name: 'id', schema: z.int() },
      { name: 'data', schema: poolSnapshotTaskChanges() },
    ],
    result: () => retentionChange(),
  }),
  delete_will_change_retention_for: method({
    summary: 'The snapshots deleting the task would leave to no task’s retention, by dataset.',
    access: roles('SNAPSHOT_TASK_READ'),
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => retentionChange(),
  }),
});

/** The methods beyond CRUD, the same in 25.10.1 and 26.0 (pool_snapshottask.py:111-159). */
const snapshotTaskExtras = () => ({
  max_count: method({
    summary: 'How many snapshots per dataset the system can sustain (512).',
    access: roles('SNAPSHOT_TASK_READ'),
    params: () => [],
    result: () => z.int(),
  }),
  max_total_count: method({
    summary: 'How many snapshots in all the system can sustain (10000).',
    access: roles('SNAPSHOT_TASK_READ'),
    params: () => [],
    result: () => z.int(),
  }),
  run: method({
    summary: 'Take the task’s snapshot now, named by its schema.',
    access: roles('SNAPSHOT_TASK_WRITE'),
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.null(),
  }),
  ...willChangeRetentionFor(),
});

/**
 * The CRUD methods over an entry (25.10.1's PoolSnapshotTaskEntry, 26.0's PeriodicSnapshotTaskEntry):
 * role_prefix SNAPSHOT_TASK; delete takes PoolSnapshotTaskDeleteOptions (pool_snapshottask.py:63-65).
 */
export function snapshotTaskCrud<Shape extends z.ZodRawShape>(entry: () => z.ZodObject<Shape>) {
  const tasks = crud(entry, () => z.int(), {
    read: roles('SNAPSHOT_TASK_READ'),
    write: roles('SNAPSHOT_TASK_WRITE'),
  });
  const summaries = POOL_SNAPSHOTTASK_SUMMARIES;
  return {
    query: tasks.query(summaries.query),
    get_instance: tasks.get_instance(summaries.get_instance),
    create: tasks.create(summaries.create, 'data', poolSnapshotTaskCreate, entry),
    update: tasks.update(summaries.update, 'data', poolSnapshotTaskUpdate, entry),
    delete: tasks.delete(summaries.delete, () => z.literal(true), {
      options: {
        schema: once(() => z.strictObject({ fixate_removal_date: z.boolean().default(false) })),
        default: () => ({ fixate_removal_date: false }),
      },
    }),
  };
}

export const poolSnapshotTaskContract = service('pool.snapshottask', {
  ...snapshotTaskCrud(poolSnapshotTaskEntry),
  ...snapshotTaskExtras(),
});
