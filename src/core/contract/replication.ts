import * as z from 'zod';
import { crud } from './crud.js';
import { cronFields, cronModel, timeString } from './cron.js';
import { nonEmptyStr, once, roles, str } from './method.js';
import { LIFETIME_UNITS } from './pool-snapshottask.js';
import { method, service } from './service.js';
import { refineNamingSchema } from './snapshot-naming-schema.js';

// `MW/api/v25_10_1/replication.py`, replication_config.py; services ReplicationService
// (MW/plugins/replication.py:114-123: a CRUDService with role_prefix REPLICATION_TASK, so query and
// get_instance need REPLICATION_TASK_READ, create, update and delete REPLICATION_TASK_WRITE,
// MW/main.py:315-337; the other methods declare REPLICATION_TASK_WRITE, :296-628) and
// ReplicationConfigService (MW/plugins/replication_/config.py:72-79, role_prefix
// REPLICATION_TASK_CONFIG). REPLICATION_ADMIN holds them all (MW/role.py), as the role catalogue says.

export const TRANSPORTS = ['SSH', 'SSH+NETCAT', 'LOCAL'] as const;
export const DIRECTIONS = ['PUSH', 'PULL'] as const;
export const RETENTION_POLICIES = ['SOURCE', 'CUSTOM', 'NONE'] as const;

/** SnapshotNameSchema (MW/api/base/types/string.py:74). */
const snapshotNameSchema = () => str().superRefine(refineNamingSchema);

/** TcpPort (MW/api/base/types/network.py:64). */
const tcpPort = () => z.int().min(1).max(65535);

/** `UniqueList` (MW/api/base/types/list.py:12-22): equal items refused after the list's own checks. */
const uniqueList = <T extends z.ZodType>(item: T) =>
  z.array(item).superRefine((v, ctx) => {
    if (new Set(v).size !== v.length)
      ctx.addIssue({ code: 'custom', message: 'List must be unique', params: { verbatim: true } });
  });

/**
 * ReplicationTimeCronModel: TimeCronModel (MW/api/v25_10_1/common.py:103-116) with minute "00"
 * (replication.py:27-29); TimeCronModel's `assert begin <= end` is pydantic's `Assertion failed, …`.
 */
export const replicationTimeCron = once(() =>
  cronModel({
    ...cronFields({ minute: '00' }),
    begin: timeString().default('00:00'),
    end: timeString().default('23:59'),
  }).superRefine((v, ctx) => {
    const minutes = (t: string) => t.split(':').reduce((h, m) => Number(h) * 60 + Number(m), 0 as number | string);
    if (Number(minutes(v.begin)) > Number(minutes(v.end)))
      ctx.addIssue({
        code: 'custom',
        message: 'Assertion failed, Begin time should be less than or equal to end time',
        params: { verbatim: true },
      });
  }),
);

/** ReplicationLifetimeModel (replication.py:32-38). */
const replicationLifetime = once(() =>
  z.strictObject({
    schedule: cronModel(cronFields()),
    lifetime_value: z.int().min(1),
    lifetime_unit: z.enum(LIFETIME_UNITS),
  }),
);

/**
 * ReplicationEntry's fields other than id, ssh_credentials, periodic_snapshot_tasks, state, job and
 * has_encrypted_dataset_keys, each with its default, in the model's order (replication.py:41-176).
 */
const taskFields = () => ({
  name: nonEmptyStr(),
  direction: z.enum(DIRECTIONS),
  transport: z.enum(TRANSPORTS),
  netcat_active_side: z.enum(['LOCAL', 'REMOTE']).nullable().default(null),
  netcat_active_side_listen_address: str().nullable().default(null),
  netcat_active_side_port_min: tcpPort().nullable().default(null),
  netcat_active_side_port_max: tcpPort().nullable().default(null),
  netcat_passive_side_connect_address: str().nullable().default(null),
  sudo: z.boolean().default(false),
  source_datasets: z.array(str()).min(1),
  target_dataset: str(),
  recursive: z.boolean(),
  exclude: z.array(str()).default([]),
  properties: z.boolean().default(true),
  properties_exclude: z.array(nonEmptyStr()).default([]),
  properties_override: z.record(z.string(), str()).default({}),
  replicate: z.boolean().default(false),
  encryption: z.boolean().default(false),
  encryption_inherit: z.boolean().nullable().default(null),
  encryption_key: str().nullable().default(null),
  encryption_key_format: z.enum(['HEX', 'PASSPHRASE']).nullable().default(null),
  encryption_key_location: str().nullable().default(null),
  naming_schema: z.array(snapshotNameSchema()).default([]),
  also_include_naming_schema: z.array(snapshotNameSchema()).default([]),
  name_regex: nonEmptyStr().nullable().default(null),
  auto: z.boolean(),
  schedule: replicationTimeCron().nullable().default(null),
  restrict_schedule: replicationTimeCron().nullable().default(null),
  only_matching_schedule: z.boolean().default(false),
  allow_from_scratch: z.boolean().default(false),
  readonly: z.enum(['SET', 'REQUIRE', 'IGNORE']).default('SET'),
  hold_pending_snapshots: z.boolean().default(false),
  retention_policy: z.enum(RETENTION_POLICIES),
  lifetime_value: z.int().min(1).nullable().default(null),
  lifetime_unit: z.enum(LIFETIME_UNITS).nullable().default(null),
  lifetimes: z.array(replicationLifetime()).default([]),
  compression: z.enum(['LZ4', 'PIGZ', 'PLZIP']).nullable().default(null),
  speed_limit: z.int().min(1).nullable().default(null),
  large_block: z.boolean().default(true),
  embed: z.boolean().default(false),
  compressed: z.boolean().default(true),
  retries: z.int().min(1).default(5),
  logging_level: z.enum(['DEBUG', 'INFO', 'WARNING', 'ERROR']).nullable().default(null),
  enabled: z.boolean().default(true),
});

/** The create fields in ReplicationEntry's order: ssh_credentials after transport, periodic_snapshot_tasks after encryption_key_location. */
function inEntryOrder<C extends z.ZodType, P extends z.ZodType, T extends Record<string, z.ZodType>>(
  fields: ReturnType<typeof taskFields>,
  sshCredentials: C,
  periodicSnapshotTasks: P,
  more: T,
) {
  const { name, direction, transport, ...afterTransport } = fields;
  const entries = Object.entries(afterTransport);
  const at = entries.findIndex(([k]) => k === 'naming_schema');
  return {
    name,
    direction,
    transport,
    ssh_credentials: sshCredentials,
    ...Object.fromEntries(entries.slice(0, at)),
    periodic_snapshot_tasks: periodicSnapshotTasks,
    ...Object.fromEntries(entries.slice(at)),
    ...more,
  } as ReturnType<typeof taskFields> & { ssh_credentials: C; periodic_snapshot_tasks: P } & T;
}

/** ReplicationCreate (replication.py:179-189): ssh_credentials an id, periodic_snapshot_tasks unique ids. */
export const replicationCreate = once(() =>
  z.strictObject(inEntryOrder(taskFields(), z.int().nullable().default(null), uniqueList(z.int()).default([]), {})),
);
export type ReplicationCreate = z.output<ReturnType<typeof replicationCreate>>;

/** ReplicationUpdate (ForUpdateMetaclass): every field optional, none defaulted. */
export const replicationUpdate = once(() => {
  const shape = replicationCreate().shape;
  return z.strictObject(
    Object.fromEntries(
      Object.entries(shape).map(([k, v]) => [k, (v instanceof z.ZodDefault ? v.unwrap() : v).optional()]),
    ),
  ) as unknown as z.ZodObject<{ [K in keyof typeof shape]: z.ZodOptional<z.ZodType<z.output<(typeof shape)[K]>>> }>;
});
export type ReplicationUpdate = Partial<ReplicationCreate>;

/**
 * ReplicationRunOnetimeArgs (replication.py:240-253): ReplicationCreate without name, auto, schedule,
 * only_matching_schedule and enabled, with three fields of its own.
 */
export const replicationRunOnetime = once(() => {
  const {
    name: _n,
    auto: _a,
    schedule: _s,
    only_matching_schedule: _o,
    enabled: _e,
    ...rest
  } = replicationCreate().shape;
  return z.strictObject({
    ...rest,
    exclude_mountpoint_property: z.boolean().default(true),
    only_from_scratch: z.boolean().default(false),
    mount: z.boolean().default(true),
  });
});
export type ReplicationRunOnetime = z.output<ReturnType<typeof replicationRunOnetime>>;

/**
 * PoolSnapshotTaskDBEntry (MW/api/v25_10_1/pool_snapshottask.py:64-68): a bound task as the
 * datastore row reads it (`extend`, MW/plugins/replication.py:140-146), `state` the row's
 * `task_state` text, never written, so "{}".
 */
const boundTaskFields = () => ({
  dataset: str(),
  recursive: z.boolean(),
  lifetime_value: z.int(),
  lifetime_unit: z.enum(LIFETIME_UNITS),
  enabled: z.boolean(),
  exclude: z.array(str()),
  naming_schema: str(),
  allow_empty: z.boolean(),
  schedule: z.object({
    minute: str(),
    hour: str(),
    dom: str(),
    month: str(),
    dow: str(),
    begin: str(),
    end: str(),
  }),
});
export const poolSnapshotTaskDbEntry = once(() => z.object({ ...boundTaskFields(), id: z.int(), state: z.string() }));
/** 26.0's PoolSnapshotTaskDBEntry: PeriodicSnapshotTaskEntry's order, id first (stable/26 MW/api/v26_0_0/pool_snapshottask.py:28-57). */
export const poolSnapshotTaskDbEntry26 = once(() => z.object({ id: z.int(), ...boundTaskFields(), state: z.string() }));

/**
 * ReplicationEntry (replication.py:41-176), its bound tasks as `boundTask` models them; `id` first,
 * as the model declares it (MW/api/v25_10_1/replication.py:40-41 at TS-25.10.1) and so answers it.
 */
export function replicationEntryOf<B extends z.ZodType>(boundTask: () => B) {
  return once(() =>
    z.object({
      id: z.int(),
      ...inEntryOrder(taskFields(), z.record(z.string(), z.unknown()).nullable(), z.array(boundTask()), {
        state: z.record(z.string(), z.unknown()),
        job: z.record(z.string(), z.unknown()).nullable(),
        has_encrypted_dataset_keys: z.boolean(),
      }),
    }),
  );
}
export const replicationEntry = replicationEntryOf(poolSnapshotTaskDbEntry);
export type ReplicationEntry = z.output<ReturnType<typeof replicationEntry>>;

const transportArgs = () =>
  [
    { name: 'transport', schema: z.enum(TRANSPORTS) },
    { name: 'ssh_credentials', schema: z.int().nullable(), default: () => null },
  ] as const;

export const REPLICATION_SUMMARIES = {
  query: 'List replication tasks (filters, options); `state` is the task’s last run as zettarepl reports it.',
  get_instance: 'One replication task by id.',
  create:
    'Create a replication task {name, direction, transport, source_datasets, target_dataset, recursive, auto, retention_policy, periodic_snapshot_tasks, …}.',
  update: 'Change a replication task by id {…}.',
  delete: 'Delete a replication task by id.',
} as const;

/** The CRUD methods over an entry: role_prefix REPLICATION_TASK (MW/plugins/replication.py:123). */
export function replicationCrud<Shape extends z.ZodRawShape>(entry: () => z.ZodObject<Shape>) {
  const tasks = crud(entry, () => z.int(), {
    read: roles('REPLICATION_TASK_READ'),
    write: roles('REPLICATION_TASK_WRITE'),
  });
  const s = REPLICATION_SUMMARIES;
  return {
    query: tasks.query(s.query),
    get_instance: tasks.get_instance(s.get_instance),
    create: tasks.create(s.create, 'replication_create', replicationCreate, entry),
    update: tasks.update(s.update, 'replication_update', replicationUpdate, entry),
    delete: tasks.delete(s.delete, () => z.boolean()),
  };
}

const write = roles('REPLICATION_TASK_WRITE');

/** `dict[str, str]` in 25.10.1 (replication.py:323-330), though zettarepl answers lists. */
export const unmatchedSnapshots = once(() => z.record(z.string(), z.unknown()));

/** The methods beyond CRUD (MW/plugins/replication.py:296-628). */
export const replicationExtras = () => ({
  run: method({
    summary: 'Run a replication task by id now (a job).',
    access: write,
    params: () => [
      { name: 'id', schema: z.int() },
      { name: 'really_run', schema: z.boolean(), default: () => true },
    ],
    result: () => z.null(),
    job: true,
  }),
  run_onetime: method({
    summary: 'Run a replication described by {…} without creating a task (a job).',
    access: write,
    params: () => [{ name: 'replication_run_onetime', schema: replicationRunOnetime() }],
    result: () => z.null(),
    job: true,
  }),
  list_datasets: method({
    summary: 'The datasets on the other side of a transport.',
    access: write,
    params: () => transportArgs(),
    result: () => z.array(z.string()),
  }),
  create_dataset: method({
    summary: 'Create a dataset on the other side of a transport.',
    access: write,
    params: () => [{ name: 'dataset', schema: str() }, ...transportArgs()],
    result: () => z.null(),
  }),
  list_naming_schemas: method({
    summary: 'Every naming schema periodic snapshot and replication tasks use, sorted.',
    access: write,
    params: () => [],
    result: () => z.array(z.string()),
  }),
  count_eligible_manual_snapshots: method({
    summary: 'How many snapshots of {datasets} match {naming_schema} or {name_regex}: {total, eligible}.',
    access: write,
    params: () => [
      {
        name: 'count_eligible_manual_snapshots',
        schema: z.strictObject({
          datasets: z.array(str()).min(1),
          naming_schema: z.array(snapshotNameSchema()).default([]),
          name_regex: nonEmptyStr().nullable().default(null),
          transport: z.enum(TRANSPORTS),
          ssh_credentials: z.int().nullable().default(null),
        }),
      },
    ],
    result: () => z.object({ total: z.int(), eligible: z.int() }),
  }),
  target_unmatched_snapshots: method({
    summary: 'The target’s snapshots its source lacks, by target dataset.',
    access: write,
    params: () => [
      { name: 'direction', schema: z.enum(DIRECTIONS) },
      { name: 'source_datasets', schema: z.array(str()).min(1) },
      { name: 'target_dataset', schema: str() },
      ...transportArgs(),
    ],
    result: () => unmatchedSnapshots(),
  }),
});

/** ReplicationConfigEntry (replication_config.py:118-122). */
export const replicationConfigEntry = once(() =>
  z.object({ id: z.int(), max_parallel_replication_tasks: z.int().min(1).nullable() }),
);

export const replicationConfigContract = service('replication.config', {
  config: method({
    summary: 'The replication settings {max_parallel_replication_tasks}.',
    access: roles('REPLICATION_TASK_CONFIG_READ'),
    params: () => [],
    result: () => replicationConfigEntry(),
  }),
  update: method({
    summary: 'Change the replication settings {max_parallel_replication_tasks}.',
    access: roles('REPLICATION_TASK_CONFIG_WRITE'),
    params: () => [
      {
        name: 'replication_config_update',
        schema: z.strictObject({ max_parallel_replication_tasks: z.int().min(1).nullable().optional() }),
      },
    ],
    result: () => replicationConfigEntry(),
  }),
});

export const replicationContract = service('replication', {
  ...replicationCrud(replicationEntry),
  ...replicationExtras(),
});
