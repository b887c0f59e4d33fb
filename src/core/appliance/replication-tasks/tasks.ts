import {
  replicationEntry as entrySchema,
  type ReplicationCreate,
  type ReplicationEntry,
} from '../../contract/replication.js';
import { once } from '../../contract/method.js';
import { storedTime } from '../../contract/cron.js';
import {
  boundEnabledChecks,
  credentialChecks,
  directionChecks,
  excludeChecks,
  isChild,
  nameRegexChecks,
  retentionChecks,
  scheduleChecks,
} from '../../contract/replication-checks.js';
import { ERRNO, errnameOf, rpcErrors, type ValidationTriple } from '../../errors.js';
import { listKeychainCredentials, type KeychainCredentialRecord } from '../../store/keychain-credentials.js';
import { listReplications, type ReplicationData, type ReplicationRecord } from '../../store/replications.js';
import { listSnapshotTasks, type SnapshotTaskRecord } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { credentialOfType, entryOf as credentialEntry, type CredentialLookupError } from '../keychain/credentials.js';
import { pythonNameRegexError } from '../replication/python-regex.js';
import { liveState, taskJob } from './runs.js';

// ReplicationService (MW/plugins/replication.py:114-577 at TS-25.10.1; its checks split into
// _validate_direction/_transport/_source_datasets/_common in stable/26 :350-675, the same checks in
// the same order): its entries and its checks. `sshCredentialLookupError` is the one place that
// looks up a task's SSH credentials in the keychain.

/** `verbose_name` of ReplicationService (MW/service/base.py:36): `Replication 7 does not exist`. */
export const REPLICATION_VERBOSE = 'Replication';

/** What a create's or merged update's data is checked as: ReplicationCreate's fields. */
export type ReplicationInput = ReplicationCreate;

const ENTRY_KEYS = once(() => Object.keys(entrySchema().shape));

/** Who calls, for the PULL role check (MW/plugins/replication.py:388-390): `has_role` of the caller's credentials. */
export type HasRole = (role: string) => boolean;

/**
 * `keychaincredential.get_of_type(id, "SSH_CREDENTIALS")` (MW/plugins/keychain.py:446-458) for
 * a task's credentials: the CallError it raises, or null when the credential is there.
 */
export function sshCredentialLookupError(appliance: Appliance, id: number): CredentialLookupError | null {
  const found = appliance.store.read(() => credentialOfType(appliance.store.db, id, 'SSH_CREDENTIALS'));
  return 'errno' in found ? found : null;
}

/**
 * `_validate`'s credential check as it reports it (MW/plugins/replication.py:427-432; stable/26
 * :488-497): `str(CallError)`, `[ENOENT] Credential does not exist`,
 * `[EINVAL] Credential is not of type SSH_CREDENTIALS`.
 */
function sshCredentialError(appliance: Appliance, id: number): string | null {
  const error = sshCredentialLookupError(appliance, id);
  return error === null ? null : `[${errnameOf(error.errno)}] ${error.message}`;
}

/**
 * PoolSnapshotTaskDBEntry of a bound task (MW/plugins/replication.py:140-146): the `storage_task`
 * row, `state` its `task_state` column, which nothing writes after its default "{}"
 * (MW/plugins/snapshot.py:37).
 */
function boundTask(t: SnapshotTaskRecord) {
  const { id, state: _state, ...fields } = t;
  return { ...fields, exclude: [...fields.exclude], schedule: { ...fields.schedule }, id, state: '{}' };
}

/**
 * ReplicationEntry as `extend` answers it (MW/plugins/replication.py:138-176): `ssh_credentials`
 * the keychain credential's row the foreign key joins (KeychainCredentialEntry,
 * MW/api/v25_10_1/replication.py:58) or null; PUSH keeps its schemas as also_include_naming_schema,
 * PULL as naming_schema; `state` PENDING until zettarepl reported on the task (a running task's
 * state is the live one, runs.ts), `job` its newest `replication.run` job once it has a state
 * (zettarepl_/state.py:68-70); has_encrypted_dataset_keys false unless the query asked for
 * `check_dataset_encryption_keys` (not emulated).
 */
export function replicationEntry(
  r: ReplicationRecord,
  tasks: ReadonlyMap<number, SnapshotTaskRecord>,
  credentials: ReadonlyMap<number, KeychainCredentialRecord>,
  appliance: Appliance,
): ReplicationEntry {
  const push = r.data.direction === 'PUSH';
  const known = liveState(appliance, r.id) ?? r.state;
  const state = { ...(known ?? { state: 'PENDING' }) };
  delete state.job;
  const job = known ? taskJob(appliance, r.id) : null;
  const values: Record<string, unknown> = {
    ...r.data,
    ssh_credentials: credentialOf(r, credentials),
    periodic_snapshot_tasks: r.periodicSnapshotTasks.flatMap((id) => {
      const t = tasks.get(id);
      return t ? [boundTask(t)] : [];
    }),
    naming_schema: push ? [] : [...r.data.naming_schema],
    also_include_naming_schema: push ? [...r.data.naming_schema] : [],
    id: r.id,
    state,
    job,
    has_encrypted_dataset_keys: false,
  };
  // ReplicationEntry's field order (replication.py:41-176), as the result model serializes it.
  return Object.fromEntries(ENTRY_KEYS().map((k) => [k, values[k]])) as ReplicationEntry;
}

/** The task's credentials' entry, or null when it has none (or the id no longer names one). */
function credentialOf(r: ReplicationRecord, credentials: ReadonlyMap<number, KeychainCredentialRecord>) {
  const id = r.data.ssh_credentials;
  const found = id === null ? undefined : credentials.get(id);
  return found ? (credentialEntry(found) as Record<string, unknown>) : null;
}

/** What `replicationEntry` joins: the bound tasks and the keychain credentials, by id. */
export function entryContext(appliance: Appliance) {
  const { db } = appliance.store;
  const [tasks, credentials] = appliance.store.read(
    () => [listSnapshotTasks(db), listKeychainCredentials(db)] as const,
  );
  return [new Map(tasks.map((t) => [t.id, t])), new Map(credentials.map((c) => [c.id, c]))] as const;
}

export function replicationEntries(appliance: Appliance): ReplicationEntry[] {
  const replications = appliance.store.read(() => listReplications(appliance.store.db));
  const [tasks, credentials] = entryContext(appliance);
  return replications.map((r) => replicationEntry(r, tasks, credentials, appliance));
}

/** The stored task, or InstanceNotFound as get_instance raises it. */
export function storedReplication(appliance: Appliance, id: number): ReplicationRecord {
  const found = appliance.store.read(() => listReplications(appliance.store.db)).find((r) => r.id === id);
  if (!found) throw rpcErrors.instanceNotFound(REPLICATION_VERBOSE, id);
  return found;
}

/** The stored entry as update merges over it (`new = old.copy()`, ids for ssh_credentials and the bound tasks, :241-245). */
export function replicationInput(e: ReplicationEntry): ReplicationInput {
  const { id: _id, state: _state, job: _job, has_encrypted_dataset_keys: _keys, ...fields } = e;
  return {
    ...fields,
    ssh_credentials: e.ssh_credentials === null ? null : (e.ssh_credentials.id as number),
    periodic_snapshot_tasks: e.periodic_snapshot_tasks.map((t) => t.id),
  } as ReplicationInput;
}

/**
 * `compress` (MW/plugins/replication.py:178-189): PUSH stores also_include_naming_schema as its
 * naming_schema, the schedules as the database keeps their times, the bound tasks apart.
 */
export function storedReplicationData(data: ReplicationInput): ReplicationData {
  const { periodic_snapshot_tasks: _tasks, also_include_naming_schema: also, ...rest } = data;
  const time = <S extends { begin: string; end: string } | null>(s: S): S =>
    s === null ? s : { ...s, begin: storedTime(s.begin), end: storedTime(s.end) };
  return {
    ...rest,
    naming_schema: data.direction === 'PUSH' ? [...also] : [...data.naming_schema],
    also_include_naming_schema: [],
    schedule: time(data.schedule),
    restrict_schedule: time(data.restrict_schedule),
  };
}

/**
 * `_validate` (MW/plugins/replication.py:344-549 at TS-25.10.1; stable/26 :350-675) under `schema`
 * (replication_create / _update / _run_onetime), in its order and words. 25.10.1 reports a CUSTOM
 * policy's missing lifetime_unit on `lifetime_value` (:531-532), 26.0 on `lifetime_unit` (stable/26 :637-638).
 */
export function replicationErrors(
  appliance: Appliance,
  data: ReplicationInput,
  schema: string,
  options: { id?: number; hasRole: HasRole; release26: boolean },
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string) => errors.push([`${schema}.${field}`, message, ERRNO.EINVAL]);
  const { db } = appliance.store;
  const [replications, allTasks] = appliance.store.read(() => [listReplications(db), listSnapshotTasks(db)] as const);

  // _ensure_unique (MW/service/crud_service.py:261-272)
  if (replications.some((r) => r.data.name === data.name && r.id !== options.id))
    add('name', 'Object with this name already exists');

  // Direction (:351-390); the bound tasks: _query_periodic_snapshot_tasks (:563-577)
  const snapshotTasks = directionChecks(
    add,
    data,
    data.periodic_snapshot_tasks.map((id) => allTasks.find((t) => t.id === id)),
  );
  if (data.direction === 'PULL') {
    if (data.hold_pending_snapshots)
      add(
        'hold_pending_snapshots',
        "Pull replication tasks can't hold pending snapshots because they don't do source retention",
      );
    if (options.hasRole('REPLICATION_TASK_WRITE') && !options.hasRole('REPLICATION_TASK_WRITE_PULL'))
      add('direction', "You don't have permissions to use PULL replication");
  }

  // Transport (:392-434)
  if (data.transport === 'SSH+NETCAT') {
    if (data.netcat_active_side === null)
      add('netcat_active_side', 'You must choose active side for SSH+netcat replication');
    const [min, max] = [data.netcat_active_side_port_min, data.netcat_active_side_port_max];
    if (min !== null && max !== null && min > max)
      add('netcat_active_side_port_max', 'Please specify value greater than or equal to netcat_active_side_port_min');
    if (data.compression !== null) add('compression', 'Compression is not supported for SSH+netcat replication');
    if (data.speed_limit !== null) add('speed_limit', 'Speed limit is not supported for SSH+netcat replication');
  } else {
    if (data.netcat_active_side !== null)
      add('netcat_active_side', 'This field only has sense for SSH+netcat replication');
    for (const k of [
      'netcat_active_side_listen_address',
      'netcat_active_side_port_min',
      'netcat_active_side_port_max',
      'netcat_passive_side_connect_address',
    ] as const)
      if (data[k] !== null) add(k, 'This field only has sense for SSH+netcat replication');
  }
  credentialChecks(add, data);
  if (data.transport === 'LOCAL') {
    if (data.compression !== null) add('compression', 'Compression has no sense for local replication');
    if (data.speed_limit !== null) add('speed_limit', 'Speed limit has no sense for local replication');
  } else if (data.ssh_credentials !== null) {
    const error = sshCredentialError(appliance, data.ssh_credentials);
    if (error !== null) add('ssh_credentials', error);
  }

  // Common for all directions and transports (:436-457)
  excludeChecks(add, data, snapshotTasks);

  // Full filesystem replication (:459-495)
  if (data.replicate) {
    if (!data.recursive) add('recursive', 'This option is required for full filesystem replication');
    if (data.exclude.length > 0) add('exclude', 'This option is not supported for full filesystem replication');
    if (!data.properties) add('properties', 'This option is required for full filesystem replication');
    if (data.retention_policy !== 'SOURCE')
      add('retention_policy', 'Only `Same as Source` retention policy can be used for full filesystem replication');
    data.source_datasets.forEach((source, i) => {
      data.source_datasets.forEach((another, j) => {
        if (j !== i && isChild(source, another))
          add(
            `source_datasets.${i}`,
            `Replication task that replicates the entire filesystem can't replicate both '${another}' and its child '${source}'`,
          );
      });
    });
    snapshotTasks.forEach((task, i) => {
      if (!data.source_datasets.some((source) => isChild(source, task.dataset)) || !task.recursive)
        add(
          `periodic_snapshot_tasks.${i}`,
          'Replication tasks that replicate the entire filesystem can only use periodic snapshot tasks that take recursive snapshots of the dataset being replicated (or its ancestor)',
        );
    });
  }

  // Encryption, schedule, name regex, retention (:497-539)
  if (data.encryption && !data.encryption_inherit)
    for (const k of ['encryption_key', 'encryption_key_format', 'encryption_key_location'] as const)
      if (data[k] === null) add(k, 'This property is required when remote dataset encryption is enabled');
  scheduleChecks(add, data);
  if (data.schedule === null && data.only_matching_schedule)
    add('only_matching_schedule', "You can't have only-matching-schedule without schedule");
  nameRegexChecks(add, data, snapshotTasks, pythonNameRegexError);
  retentionChecks(add, data, options.release26);
  if (data.retention_policy !== 'CUSTOM' && data.lifetimes.length > 0)
    add('lifetimes', 'This field has no sense for specified retention policy');

  // Bound tasks enabled (:541-547)
  boundEnabledChecks(add, data, snapshotTasks);
  return errors;
}

export function checkReplication(...args: Parameters<typeof replicationErrors>): void {
  const errors = replicationErrors(...args);
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

/** The replications bound to a task (MW/plugins/snapshot.py:202-211, 269-280 read them). */
export function replicationsBoundTo(appliance: Appliance, taskId: number): ReplicationEntry[] {
  return replicationEntries(appliance).filter((r) => r.periodic_snapshot_tasks.some((t) => t.id === taskId));
}
