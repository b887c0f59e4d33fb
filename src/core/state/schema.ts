/**
 * The desired-state file (docs/COMMANDS.md "Desired state", docs/STATE.md):
 * YAML or JSON, matched by name, every section optional, unknown keys refused with their path.
 * The zod schema is the one definition: the types below, the parser (`parse.ts`) and the shipped
 * JSON Schema (`schema/stor-state.schema.json`, `json-schema.ts`) all come from it.
 */
import * as z from 'zod';
import { LIFETIME_UNITS } from '../contract/pool-snapshottask.js';
import { DIRECTIONS, RETENTION_POLICIES } from '../contract/replication.js';
import { NFS_SECURITY } from '../contract/sharing-nfs.js';
import { SMB_PURPOSES } from '../contract/sharing-smb.js';
import { objectsAt, partsOf, section, type Part } from './sections.js';

const name = () => z.string().min(1);

export const stateGroupSchema = z.strictObject({
  name: name().describe('the group name; objects are matched by name'),
  gid: z.int().positive().optional().describe('a differing gid on the target is reported, never changed in place'),
  members: z
    .array(name())
    .optional()
    .describe("usernames: the group's complete member list (primary and auxiliary members, as group.query lists them)"),
});

export const stateUserSchema = z.strictObject({
  name: name().describe('the username'),
  full_name: z.string().optional(),
  group: name()
    .optional()
    .describe('primary group by name (default on create: a new group named like the user, as 25.10.1 does)'),
  groups: z.array(name()).optional().describe('auxiliary groups by name'),
  shell: z.string().min(1).optional(),
  home: z.string().min(1).optional(),
  password_disabled: z
    .literal(true)
    .optional()
    .describe('users made from a state file never get a password: password login stays off'),
});

export const statePrivilegeSchema = z.strictObject({
  name: name(),
  groups: z.array(name()).optional().describe('local group names'),
  roles: z.array(name()).optional().describe("role names of the target's catalogue"),
  web_shell: z.boolean().optional(),
});

export const stateApiKeySchema = z.strictObject({
  name: name(),
  user: name().describe('the local user the key logs in as'),
  expires: z.iso.datetime({ offset: true }).nullable().optional().describe('ISO 8601 date-time, or null for never'),
});

/**
 * pool.dataset.create's options that are not ZFS properties (MW/api/v25_10_1/pool_dataset.py:191-290):
 * `properties` is spread into its params beside the name stor matches the dataset by and the mark
 * it owns it by, so one of these would create another dataset than the one named, or a volume,
 * which plan never matches again.
 */
const CREATE_OPTIONS = new Set([
  'name',
  'type',
  'user_properties',
  'create_ancestors',
  'volsize',
  'volblocksize',
  'sparse',
  'force_size',
  'encryption',
  'encryption_options',
  'inherit_encryption',
]);

const propertyName = z.string().refine((key) => !CREATE_OPTIONS.has(key), {
  message:
    'a create option, not a ZFS property: a state file makes filesystems under the name it gives, unencrypted or as their parent',
  abort: true,
});

export const stateDatasetSchema = z.strictObject({
  name: name().describe('full dataset name, pool/path'),
  comments: z.string().optional(),
  properties: z
    .record(propertyName, z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe(
      'ZFS properties by their pool.dataset.create/update names (compression, quota, atime, readonly, recordsize, sync, exec, copies, …), each read into the terms the appliance takes and compared in: sizes as 10G or bytes (none clears), ints as numbers (copies: 2), words in any case (lz4, on), true/false as ON/OFF, inherit for the inherited value; a key with a colon is a user property, kept as written',
    ),
});

/** An NFS share (sharing.nfs.create's fields, MW/api/v25_10_1/nfs.py:126-213), matched by its path. */
export const stateNfsShareSchema = z.strictObject({
  path: z.string().min(1).describe('the path exported, /mnt/POOL/…; NFS shares are matched by path'),
  comment: z.string().optional(),
  networks: z
    .array(name())
    .optional()
    .describe(
      'the networks allowed (none: every network), compared as sets in the form the appliance stores, 10.0.0.0/8',
    ),
  hosts: z.array(name()).optional().describe('the hosts allowed (none: every host), compared as a set'),
  ro: z.boolean().optional().describe('read-only'),
  maproot_user: name().nullable().optional(),
  maproot_group: name().nullable().optional(),
  mapall_user: name().nullable().optional(),
  mapall_group: name().nullable().optional(),
  security: z.array(z.enum(NFS_SECURITY)).optional().describe('security flavours, compared as a set'),
  enabled: z.boolean().optional(),
});

/** An SMB share (sharing.smb.create's common fields, MW/api/v25_10_1/smb.py:598-702), matched by name with case ignored. */
export const stateSmbShareSchema = z.strictObject({
  name: name().describe(
    'the share name; SMB shares are matched by name with case ignored, as the appliance compares them',
  ),
  path: z.string().min(1).describe('the path shared, /mnt/POOL/…'),
  purpose: z
    .enum(SMB_PURPOSES)
    .optional()
    .describe("the share's purpose; the options it sets are the appliance's and never compared"),
  comment: z.string().optional(),
  readonly: z.boolean().optional(),
  browsable: z.boolean().optional(),
  access_based_share_enumeration: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

/** A lifetime as a file writes it: `2w`, `30d`, `12h`, `6m` (months), `1y`. */
export const LIFETIME_TEXT = /^([0-9]+)\s*([hdwmy])$/i;

/**
 * A lifetime of 0: the appliance takes it (`lifetime_value: int`, MW/api/v25_10_1/pool_snapshottask.py:34),
 * and retention then destroys each snapshot at the run after it is taken: a file that asks for that is a slip.
 */
const NO_ZERO_LIFETIME = 'a lifetime of 0 keeps no snapshot: retention would destroy each one at the next run';

/** A lifetime as a file writes it: `2w`, or `{value, unit}`; never 0. */
const lifetimeSchema = () =>
  z.union([
    z
      .string()
      .regex(LIFETIME_TEXT, 'a lifetime is a count and a unit: 12h, 30d, 2w, 6m (months), 1y')
      .refine((v) => Number(LIFETIME_TEXT.exec(v)?.[1]) > 0, NO_ZERO_LIFETIME),
    z.strictObject({
      value: z.int().refine((v) => v > 0, NO_ZERO_LIFETIME),
      unit: z.enum(LIFETIME_UNITS),
    }),
  ]);

/** A schedule as a file writes it: five cron fields, or the object with its window. */
const scheduleSchema = () =>
  z.union([
    z
      .string()
      .refine((v) => v.trim().split(/\s+/).length === 5, 'a schedule is 5 cron fields: minute hour dom month dow'),
    z.strictObject({
      minute: z.string().optional(),
      hour: z.string().optional(),
      dom: z.string().optional(),
      month: z.string().optional(),
      dow: z.string().optional(),
      begin: z.string().optional().describe('HH:MM: none before this time of day'),
      end: z.string().optional().describe('HH:MM: none after'),
    }),
  ]);

/**
 * A periodic snapshot task (pool.snapshottask.create's fields, MW/api/v25_10_1/pool_snapshottask.py:29-47),
 * matched by its dataset and naming schema together.
 */
export const stateSnapshotTaskSchema = z.strictObject({
  dataset: name().describe('the dataset snapshotted, pool/path; tasks are matched by dataset and naming_schema'),
  naming_schema: name().describe(
    'the snapshot names, strftime style: %Y %m %d %H %M (or %s alone), e.g. auto-%Y-%m-%d_%H-%M',
  ),
  recursive: z.boolean().optional().describe('also snapshot the datasets under it'),
  exclude: z.array(name()).optional().describe('datasets under it left out of a recursive task'),
  lifetime: lifetimeSchema()
    .optional()
    .describe('how long each snapshot is kept: 2w, 30d, 1y, 12h, 6m (months), or {value, unit}'),
  schedule: scheduleSchema()
    .optional()
    .describe('when snapshots are taken: 5 cron fields ("0 * * * *"), or {minute, hour, dom, month, dow, begin, end}'),
  allow_empty: z.boolean().optional().describe('also take a snapshot when nothing was written since the last'),
  enabled: z.boolean().optional(),
});

/**
 * A replication task (replication.create's fields, MW/api/v25_10_1/replication.py:41-189), matched by
 * name. What a create needs besides: `transport`, `source_datasets`, `target_dataset`; the rest
 * the appliance requires has a default here (direction PUSH, recursive false, auto true,
 * retention_policy NONE).
 */
export const stateReplicationSchema = z.strictObject({
  name: name().describe('the task name; replications are matched by name'),
  direction: z.enum(DIRECTIONS).optional().describe('PUSH (default on create) sends local snapshots; PULL fetches'),
  transport: z.enum(['LOCAL', 'SSH']).optional().describe('LOCAL: to a dataset of the same appliance; SSH: to another'),
  ssh_credentials: z
    .union([z.int().positive(), name()])
    .nullable()
    .optional()
    .describe("an SSH transport's keychain credential (SSH_CREDENTIALS), by name or id"),
  source_datasets: z.array(name()).min(1).optional().describe('the datasets sent, pool/path'),
  target_dataset: name().optional().describe('where they are received, pool/path'),
  recursive: z.boolean().optional().describe('also the datasets under the sources'),
  exclude: z.array(name()).optional().describe('datasets under the sources left out of a recursive task'),
  periodic_snapshot_tasks: z
    .array(z.string().regex(/^[^@]+@[^@]+$/, 'a snapshot task is named DATASET@NAMING_SCHEMA'))
    .optional()
    .describe(
      'the snapshot tasks whose snapshots a PUSH sends, by their identity DATASET@NAMING_SCHEMA (there, or in this file)',
    ),
  also_include_naming_schema: z.array(name()).optional().describe('PUSH: more snapshot names sent, strftime style'),
  naming_schema: z.array(name()).optional().describe('PULL: the snapshot names fetched, strftime style'),
  name_regex: name().nullable().optional().describe('instead of naming schemas: the snapshot names sent, a regex'),
  auto: z.boolean().optional().describe('run on its schedule, or after its snapshot tasks (default true on create)'),
  schedule: scheduleSchema()
    .nullable()
    .optional()
    .describe(
      'when it runs: 5 cron fields, or {minute, hour, dom, month, dow, begin, end}; null: after its snapshot tasks',
    ),
  retention_policy: z
    .enum(RETENTION_POLICIES)
    .optional()
    .describe(
      "the target's snapshots: SOURCE removes what the source removed, CUSTOM keeps `lifetime`, NONE keeps all (default on create)",
    ),
  lifetime: lifetimeSchema().optional().describe('CUSTOM retention: how long the target keeps each snapshot'),
  allow_from_scratch: z
    .boolean()
    .optional()
    .describe('may destroy the target and send everything again when they have no snapshot in common'),
  readonly: z.enum(['SET', 'REQUIRE', 'IGNORE']).optional().describe("the target dataset's readonly property"),
  enabled: z.boolean().optional(),
});

export const stateFileSchema = z.strictObject({
  stor_state: z.literal(1).describe('format version'),
  groups: section(stateGroupSchema),
  users: section(stateUserSchema),
  privileges: section(statePrivilegeSchema),
  api_keys: section(stateApiKeySchema),
  datasets: section(stateDatasetSchema),
  snapshot_tasks: section(stateSnapshotTaskSchema, { fields: ['dataset', 'naming_schema'] }),
  replications: section(stateReplicationSchema),
  shares: z
    .strictObject({
      nfs: section(stateNfsShareSchema, { fields: ['path'] }),
      smb: section(stateSmbShareSchema, { fold: true }),
    })
    .optional()
    .describe('shares, by protocol'),
});

export type StateDataset = z.infer<typeof stateDatasetSchema>;
/** A whole desired-state file. */
export type StateFile = z.infer<typeof stateFileSchema>;

/** The dotted places of T's lists: `groups`, and `shares.nfs` for a list inside an object of sections. */
type Places<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends readonly unknown[]
    ? K
    : NonNullable<T[K]> extends Record<string, unknown>
      ? `${K}.${Places<NonNullable<T[K]>>}`
      : never;
}[keyof T & string];

/** What sits at a dotted place of T. */
type At<T, P extends string> = P extends `${infer H}.${infer R}`
  ? H extends keyof T
    ? At<NonNullable<T[H]>, R>
    : never
  : P extends keyof T
    ? NonNullable<T[P]>
    : never;

/**
 * A section of the file: a kind of object, named by its place (`groups`, `shares.nfs`). Their
 * order (creates and updates in it, deletes in reverse) is the table of kinds in
 * commands/state/kinds/index.ts, which has one row per section.
 */
export type StateKind = Places<StateFile>;

/** One object of a section: `StateObject<'groups'>` is a group of the file. */
export type StateObject<K extends StateKind> = At<StateFile, K> extends readonly (infer O)[] ? O : never;

/** The sections, as the schema lists them (nested ones walked): place, objects' schema, how they are matched. */
export const STATE_PARTS = partsOf(stateFileSchema) as (Part & { place: StateKind })[];

/** The sections' places, as the schema lists them. */
export const STATE_SECTIONS: readonly StateKind[] = STATE_PARTS.map((p) => p.place);

/** A section's part. */
export const partOf = (kind: StateKind): Part => STATE_PARTS.find((p) => p.place === kind)!;

/** A file's objects of one section (none when it leaves the section out). */
export const objectsOf = <K extends StateKind>(file: StateFile, kind: K): readonly StateObject<K>[] =>
  (objectsAt(file, kind) ?? []) as readonly StateObject<K>[];
