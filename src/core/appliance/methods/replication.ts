import { SECRET_PLACEHOLDER } from '../../contract/accounts-common.js';
import {
  replicationConfigContract,
  replicationContract,
  type ReplicationCreate,
  type ReplicationRunOnetime,
  type ReplicationUpdate,
} from '../../contract/replication.js';
import { replicationContract26 } from '../../contract/v26_0_0/replication.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import {
  deleteReplications,
  insertReplication,
  replicationConfig,
  setReplicationConfig,
  updateReplication,
} from '../../store/replications.js';
import { listSnapshots } from '../../store/snapshots.js';
import { listSnapshotTasks } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';
import {
  REPLICATION_VERBOSE,
  checkReplication,
  entryContext,
  replicationEntries,
  replicationEntry,
  replicationInput,
  sshCredentialLookupError,
  storedReplication,
  storedReplicationData,
  type HasRole,
} from '../replication-tasks/tasks.js';
import { createDatasetP } from '../replication-tasks/create-dataset.js';
import { followRun, replicationSpec, startRun } from '../replication-tasks/runs.js';
import { isRelease26 } from '../services/records.js';
import { targetDatasetOf } from '../snapshot-tasks/dataset-tree.js';
import { nameRegexTest } from '../replication/python-regex.js';
import { tryParseSnapshotName } from '../../contract/snapshot-naming-schema.js';

// The handlers of contract/replication.ts (and 26.0's entries, contract/v26_0_0/replication.ts), as
// ReplicationService and ReplicationConfigService answer them (MW/plugins/replication.py:114-628,
// MW/plugins/replication_/config.py). Tasks are stored and checked; a LOCAL push runs through the
// copy engine (replication-tasks/runs.ts).

function entryOf(appliance: Appliance, id: number) {
  const record = storedReplication(appliance, id);
  return replicationEntry(record, ...entryContext(appliance), appliance);
}

/**
 * An answer as dump_result gives it (MW/main.py:834-845): a caller who is not FULL_ADMIN and lacks
 * REPLICATION_TASK_WRITE (role_prefix, MW/plugins/replication.py:123) reads the joined credentials'
 * `attributes` (Secret in KeychainCredentialEntry) as `********`.
 */
function answered<T>(ctx: CallContext, answer: T): T {
  if (ctx.session.isFullAdmin || ctx.session.hasRole('REPLICATION_TASK_WRITE')) return answer;
  const redact = (item: unknown): unknown => {
    if (item === null || typeof item !== 'object' || !('ssh_credentials' in item)) return item;
    const credentials = item.ssh_credentials as Record<string, unknown> | null;
    return credentials === null
      ? item
      : { ...item, ssh_credentials: { ...credentials, attributes: SECRET_PLACEHOLDER } };
  };
  return (Array.isArray(answer) ? answer.map(redact) : redact(answer)) as T;
}

const hasRoleOf =
  (ctx: CallContext): HasRole =>
  (role) =>
    ctx.session.hasRole(role);

/** do_create (MW/plugins/replication.py:199-223): validate, store with its bound tasks; the new entry. */
function createReplication(ctx: CallContext, data: ReplicationCreate) {
  const { appliance } = ctx;
  const { store } = appliance;
  const release26 = isRelease26(appliance);
  const id = store.write(() => {
    checkReplication(appliance, data, 'replication_create', { hasRole: hasRoleOf(ctx), release26 });
    return insertReplication(store.db, storedReplicationData(data), data.periodic_snapshot_tasks);
  });
  return entryOf(appliance, id);
}

/** do_update (MW/plugins/replication.py:233-271): the stored task with `data` laid over it, validated as a whole. */
function updateReplicationTask(ctx: CallContext, id: number, data: ReplicationUpdate) {
  const { appliance } = ctx;
  const { store } = appliance;
  const release26 = isRelease26(appliance);
  const merged = { ...replicationInput(entryOf(appliance, id)), ...data };
  store.write(() => {
    storedReplication(appliance, id);
    checkReplication(appliance, merged, 'replication_update', { id, hasRole: hasRoleOf(ctx), release26 });
    updateReplication(store.db, id, storedReplicationData(merged), merged.periodic_snapshot_tasks);
  });
  return entryOf(appliance, id);
}

/** do_delete (MW/plugins/replication.py:279-294): get_instance first, so an unknown id is refused; the links go with it. */
function deleteReplication(appliance: Appliance, id: number): boolean {
  storedReplication(appliance, id);
  appliance.store.write(() => deleteReplications(appliance.store.db, [id]));
  return true;
}

/**
 * run (MW/plugins/replication.py:296-318; stable/26 :304-324): with really_run, the task looked up
 * (an unknown id is InstanceNotFound), 25.10.1 refusing a disabled task (26.0 no longer does),
 * either refusing one running or on hold, then zettarepl asked to run it
 * (`run_replication_task`, MW/plugins/zettarepl.py:396-403); either way the job follows the
 * task's next run and ends with it (:428-464): without really_run, the one the scheduler starts.
 */
function runTask(ctx: CallContext, id: number, reallyRun: boolean, release26: boolean): Promise<null> {
  const { appliance } = ctx;
  if (!reallyRun) return followRun(appliance, id, ctx.job);
  const task = entryOf(appliance, id);
  if (!release26 && !task.enabled) throw rpcErrors.call(ERRNO.EFAULT, 'Task is not enabled');
  if (task.state.state === 'RUNNING') throw rpcErrors.call(ERRNO.EFAULT, 'Task is already running');
  if (task.state.state === 'HOLD') throw rpcErrors.call(ERRNO.EFAULT, 'Task is on hold');
  const spec = replicationSpec(appliance, replicationInput(task));
  const followed = followRun(appliance, id, ctx.job);
  void startRun(appliance, id, spec);
  return followed;
}

/**
 * run_onetime (MW/plugins/replication.py:320-342): the data made a task named for the job, never
 * automatic, enabled, checked as `fake_app()` calls (no role, so no PULL check: MW/auth.py:316-317);
 * zettarepl runs it as `job_N` and the job follows it (`run_onetime_replication_task`,
 * MW/plugins/zettarepl.py:405-426).
 */
function runOnetime(ctx: CallContext, data: ReplicationRunOnetime): Promise<null> {
  const { exclude_mountpoint_property: _x, only_from_scratch: _o, mount: _m, ...rest } = data;
  const jobId = ctx.job?.id ?? 0;
  const task: ReplicationCreate = {
    ...rest,
    name: `Temporary replication task for job ${jobId}`,
    schedule: null,
    only_matching_schedule: false,
    auto: false,
    enabled: true,
  };
  checkReplication(ctx.appliance, task, 'replication_run_onetime', { hasRole: () => false, release26: false });
  const spec = replicationSpec(ctx.appliance, task);
  const key = `job_${jobId}` as const;
  const followed = followRun(ctx.appliance, key, ctx.job);
  void startRun(ctx.appliance, key, spec);
  return followed;
}

/**
 * `_get_zettarepl_shell` → `_define_transport` (MW/plugins/zettarepl.py:819-845): LOCAL is this
 * appliance; SSH and SSH+NETCAT need a credential, which `keychaincredential.get_of_type` looks up
 * (its CallError raised as it is). The emulator opens no SSH connection, so a remote shell is not emulated.
 */
function localShell(appliance: Appliance, transport: string, sshCredentials: number | null): void {
  if (transport === 'LOCAL') return;
  const name = transport === 'SSH+NETCAT' ? 'SSH' : transport;
  if (sshCredentials === null)
    throw rpcErrors.call(ERRNO.EFAULT, `You should pass SSH credentials for ${name} transport`);
  const error = sshCredentialLookupError(appliance, sshCredentials);
  if (error !== null) throw rpcErrors.call(error.errno, error.message);
  throw rpcErrors.call(
    ERRNO.EOPNOTSUPP,
    `${transport} transport is not emulated: stor serve makes no SSH or remote API connection`,
  );
}

/** INVALID_DATASETS (MW/plugins/zettarepl.py:57-61): what list_datasets leaves out. */
const INVALID_DATASETS = [/^boot-pool($|\/)/, /^freenas-boot($|\/)/, /^[^/]+\/\.system($|\/)/];

/** zettarepl.list_datasets (MW/plugins/zettarepl.py:502-511): `zfs list -s name`, the invalid ones left out. */
function listDatasets(appliance: Appliance, transport: string, sshCredentials: number | null): string[] {
  localShell(appliance, transport, sshCredentials);
  return appliance
    .datasets()
    .map((d) => d.id)
    .sort()
    .filter((ds) => !INVALID_DATASETS.some((r) => r.test(ds)));
}

/** Snapshot names by dataset, as `multilist_snapshots` lists them. */
function snapshotsByDataset(appliance: Appliance): Map<string, string[]> {
  const byDataset = new Map<string, string[]>();
  for (const s of appliance.store.read(() => listSnapshots(appliance.store.db))) {
    const name = s.id.slice(s.id.indexOf('@') + 1);
    byDataset.set(s.dataset, [...(byDataset.get(s.dataset) ?? []), name]);
  }
  return byDataset;
}

/**
 * zettarepl.count_eligible_manual_snapshots (MW/plugins/zettarepl.py:518-543): the datasets'
 * own snapshots (not recursive), those a naming schema parses or the regex matches eligible.
 */
function countEligible(
  appliance: Appliance,
  data: {
    datasets: string[];
    naming_schema: string[];
    name_regex: string | null;
    transport: string;
    ssh_credentials: number | null;
  },
) {
  if (data.naming_schema.length > 0 && data.name_regex)
    throw rpcErrors.call(ERRNO.EINVAL, '`naming_schema` and `name_regex` cannot be used simultaneously');
  localShell(appliance, data.transport, data.ssh_credentials);
  const byDataset = snapshotsByDataset(appliance);
  const names = data.datasets.flatMap((ds) => byDataset.get(ds) ?? []);
  let eligible: number;
  if (data.naming_schema.length > 0) {
    // parse_snapshots_names_with_multiple_schemas: a name counts once whichever schemas parse it.
    eligible = names.filter((n) =>
      data.naming_schema.some((schema) => tryParseSnapshotName(n, schema) !== null),
    ).length;
  } else if (data.name_regex) {
    let matches: (name: string) => boolean;
    try {
      // compile_name_regex (zettarepl/replication/task/name_pattern.py): the whole name must match.
      matches = nameRegexTest(data.name_regex);
    } catch (err) {
      throw rpcErrors.call(ERRNO.EFAULT, `Invalid \`name_regex\`: ${(err as Error).message}`);
    }
    eligible = names.filter(matches).length;
  } else {
    throw rpcErrors.call(ERRNO.EINVAL, 'Either `naming_schema` or `name_regex` must be specified');
  }
  return { total: names.length, eligible };
}

/**
 * zettarepl.target_unmatched_snapshots (MW/plugins/zettarepl.py:554-591): for each source dataset
 * whose target dataset exists, the target's snapshots the source lacks, by target dataset. LOCAL
 * only: both sides are this appliance.
 */
function targetUnmatched(
  appliance: Appliance,
  sourceDatasets: string[],
  targetDataset: string,
  transport: string,
  sshCredentials: number | null,
): Record<string, string[]> {
  localShell(appliance, transport, sshCredentials);
  const scope = { sourceDatasets, targetDataset, recursive: false, exclude: [] };
  const existing = new Set(appliance.datasets().map((d) => d.id));
  const byDataset = snapshotsByDataset(appliance);
  const result: Record<string, string[]> = {};
  for (const source of sourceDatasets) {
    const target = targetDatasetOf(scope, source);
    if (!existing.has(target)) continue;
    const sourceNames = new Set(byDataset.get(source) ?? []);
    const unmatched = (byDataset.get(target) ?? []).filter((n) => !sourceNames.has(n));
    if (unmatched.length > 0) result[target] = unmatched;
  }
  return result;
}

/** list_naming_schemas (MW/plugins/replication.py:594-605): every task's schemas, sorted, once each. */
function listNamingSchemas(appliance: Appliance): string[] {
  const schemas = new Set(
    appliance.store.read(() => listSnapshotTasks(appliance.store.db)).map((t) => t.naming_schema),
  );
  for (const r of replicationEntries(appliance))
    for (const s of [...r.naming_schema, ...r.also_include_naming_schema]) schemas.add(s);
  return [...schemas].sort();
}

const c = replicationContract;

export const replicationMethods = [
  implement(c['replication.query'], (ctx, filters, options) =>
    answered(ctx, query(replicationEntries(ctx.appliance), filters, options)),
  ),
  implement(c['replication.get_instance'], (ctx, id, options) =>
    answered(ctx, getInstance(replicationEntries(ctx.appliance), id, options, REPLICATION_VERBOSE)),
  ),
  implement(c['replication.create'], (ctx, data) => createReplication(ctx, data)),
  implement(c['replication.update'], (ctx, id, data) => updateReplicationTask(ctx, id, data)),
  implement(c['replication.delete'], ({ appliance }, id) => deleteReplication(appliance, id)),
  implement(c['replication.run'], (ctx, id, reallyRun) => runTask(ctx, id, reallyRun, false)),
  implement(c['replication.run_onetime'], (ctx, data) => runOnetime(ctx, data)),
  implement(c['replication.list_datasets'], ({ appliance }, transport, ssh) => listDatasets(appliance, transport, ssh)),
  implement(c['replication.create_dataset'], ({ appliance }, dataset, transport, ssh) => {
    localShell(appliance, transport, ssh);
    return createDatasetP(appliance, dataset);
  }),
  implement(c['replication.list_naming_schemas'], ({ appliance }) => listNamingSchemas(appliance)),
  implement(c['replication.count_eligible_manual_snapshots'], ({ appliance }, data) => countEligible(appliance, data)),
  implement(c['replication.target_unmatched_snapshots'], ({ appliance }, _direction, sources, target, transport, ssh) =>
    targetUnmatched(appliance, sources, target, transport, ssh),
  ),
  // ReplicationConfigService (MW/plugins/replication_/config.py:72-102): one row, merged over.
  implement(replicationConfigContract['replication.config.config'], ({ appliance }) =>
    appliance.store.read(() => replicationConfig(appliance.store.db)),
  ),
  implement(replicationConfigContract['replication.config.update'], ({ appliance }, data) =>
    appliance.store.write(() => {
      if (data.max_parallel_replication_tasks !== undefined)
        setReplicationConfig(appliance.store.db, data.max_parallel_replication_tasks);
      return replicationConfig(appliance.store.db);
    }),
  ),
];

/**
 * 26.0's run, implemented from its own entry: it takes `options` and no longer refuses a disabled
 * task (stable/26 MW/plugins/replication.py:304-324). The rest are 25.10.1's handlers, their answers
 * adapted (`fromBase`); create and update read the release for CUSTOM's lifetime_unit (:632-638).
 */
export const replicationMethods26 = [
  implement(replicationContract26['replication.run'], (ctx, id, options) => runTask(ctx, id, options.really_run, true)),
];
