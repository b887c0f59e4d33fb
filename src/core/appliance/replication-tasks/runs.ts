import type { ReplicationCreate } from '../../contract/replication.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { listReplications, setReplicationState } from '../../store/replications.js';
import { listSnapshotTasks } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { collectionUpdate } from '../events.js';
import type { JobEntry, JobHandle } from '../jobs/jobs.js';
import { credentialOfType } from '../keychain/credentials.js';
import { runRemoteReplication, type RemoteEndpoint } from '../replication/remote.js';
import { runLocalReplication, type LocalReplicationSpec, type ReplicationProgress } from '../replication/run.js';
import { isRelease26 } from '../services/records.js';
import { Session } from '../session/session.js';
import type { LifetimeUnit } from '../../lifetime.js';

// Runs of replication tasks, as zettarepl runs them and the middleware hears them
// (MW/plugins/zettarepl.py:396-500 at TS-25.10.1, its observer :940-1051, zettarepl_/state.py):
// a run reports RUNNING (ReplicationTaskStart), RUNNING with `progress` before each send
// (ReplicationTaskSnapshotStart), `last_snapshot` after each (ReplicationTaskSnapshotSuccess), then
// FINISHED or ERROR; the jobs waiting on the task (`replication_jobs_channels`) follow its progress
// and end with it. A stored task's state is heard as `replication.query` CHANGED
// (MW/plugins/replication.py:681-684); only FINISHED and ERROR outlive the process, as
// `flush_state` keeps only those (zettarepl_/state.py:108-113). A one-time task (`job_N`) is heard
// by its job alone.

/** `make_sentence` (MW/utils/__init__.py): a period at the end, if there is none. */
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** What a task is known by: a stored task's id, or `job_N` for run_onetime's. */
type RunKey = number | `job_${number}`;

interface Waiter {
  job: JobHandle;
  settle: (error: string | null) => void;
}

interface Runs {
  /** Tasks running now (zettarepl's `running_tasks`). */
  running: Set<RunKey>;
  /** Tasks asked to run while running, run again once done (zettarepl.py:207-222, 280-308). */
  pending: Map<RunKey, () => Promise<void>>;
  /** Jobs waiting for a task's next end (`replication_jobs_channels`). */
  waiting: Map<RunKey, Set<Waiter>>;
  /** A running stored task's state, which `get_state` answers before the stored one. */
  live: Map<number, Record<string, unknown>>;
}

const registry = new WeakMap<Appliance, Runs>();

function runsOf(appliance: Appliance): Runs {
  let runs = registry.get(appliance);
  if (!runs) {
    runs = { running: new Set(), pending: new Map(), waiting: new Map(), live: new Map() };
    registry.set(appliance, runs);
  }
  return runs;
}

/**
 * Why the emulator cannot run this task, or null when it can: the one place that says so. An SSH
 * push goes to another `stor serve` on loopback (replication/remote.ts, docs/REPLICATION.md); a
 * pull and SSH+NETCAT are not the copy engine's yet.
 */
function notEmulated(data: Pick<ReplicationCreate, 'transport' | 'direction'>): string | null {
  if (data.transport === 'SSH+NETCAT') return 'SSH+NETCAT replication runs are not emulated yet';
  if (data.direction !== 'PUSH') return `${data.transport} PULL replication runs are not emulated yet`;
  return null;
}

/** What a run needs: the engine's spec and, for an SSH push, the other appliance its credentials name. */
export type RunSpec = LocalReplicationSpec & { readonly remote?: RemoteEndpoint };

/**
 * The other end of an SSH push as zettarepl's SSH transport reads it from the task's credentials
 * (`_replication_task_definition`, MW/plugins/zettarepl.py:702-713, each looked up as
 * `keychaincredential.get_of_type` does, MW/plugins/keychain.py:446-458): host, port, user, the
 * key pair's private key, the known host key and the connect timeout.
 */
function remoteOf(appliance: Appliance, credentialsId: number | null): RemoteEndpoint {
  const { db } = appliance.store;
  const lookup = <T>(id: number, type: 'SSH_CREDENTIALS' | 'SSH_KEY_PAIR'): T => {
    const found = appliance.store.read(() => credentialOfType(db, id, type));
    if ('errno' in found) throw rpcErrors.call(found.errno, found.message);
    return found.attributes as T;
  };
  if (credentialsId === null) throw rpcErrors.call(ERRNO.ENOENT, 'Credential does not exist');
  const ssh = lookup<{
    host: string;
    port: number;
    username: string;
    private_key: number;
    remote_host_key: string;
    connect_timeout: number;
  }>(credentialsId, 'SSH_CREDENTIALS');
  const pair = lookup<{ private_key: string | null }>(ssh.private_key, 'SSH_KEY_PAIR');
  return {
    host: ssh.host,
    port: ssh.port,
    username: ssh.username,
    privateKey: pair.private_key ?? '',
    remoteHostKey: ssh.remote_host_key,
    connectTimeout: ssh.connect_timeout,
  };
}

/**
 * The task as zettarepl's definition has it (`_replication_task_definition`,
 * MW/plugins/zettarepl.py:706-790; zettarepl/replication/task/task.py): a push's naming schemas are
 * its bound periodic snapshot tasks' and `also_include_naming_schema`.
 */
export function replicationSpec(appliance: Appliance, data: ReplicationCreate): RunSpec {
  const reason = notEmulated(data);
  if (reason !== null) throw rpcErrors.call(ERRNO.EFAULT, reason);
  const remote = data.transport === 'SSH' ? remoteOf(appliance, data.ssh_credentials ?? null) : undefined;
  const tasks = appliance.store.read(() => listSnapshotTasks(appliance.store.db));
  const bound = data.periodic_snapshot_tasks.flatMap((id) => tasks.filter((t) => t.id === id));
  const lifetime =
    data.lifetime_value !== null && data.lifetime_unit !== null
      ? { value: data.lifetime_value, unit: data.lifetime_unit as LifetimeUnit }
      : null;
  return {
    sourceDatasets: [...data.source_datasets],
    targetDataset: data.target_dataset,
    recursive: data.recursive,
    exclude: [...data.exclude],
    namingSchemas: [...new Set([...bound.map((t) => t.naming_schema), ...data.also_include_naming_schema])],
    nameRegex: data.name_regex ?? null,
    retentionPolicy: data.retention_policy,
    lifetime,
    allowFromScratch: data.allow_from_scratch,
    readonly: data.readonly,
    ...(remote ? { remote } : {}),
  };
}

/**
 * The `replication.run` job `zettarepl.get_task_state_job` shows for task `id`
 * (MW/utils/service/task_state.py:10-35): the newest, unless an older one is still running.
 */
export function taskJob(appliance: Appliance, id: number): JobEntry | null {
  let found: JobEntry | null = null;
  for (const j of appliance.jobs.ofMethod('replication.run').sort((a, b) => a.id - b.id)) {
    if (j.arguments[0] !== id) continue;
    if (found?.state === 'RUNNING') continue;
    found = j;
  }
  return found;
}

/** A stored task's state as `get_state` answers it: the running one's, else the stored one. */
export function liveState(appliance: Appliance, id: number): Record<string, unknown> | undefined {
  return runsOf(appliance).live.get(id);
}

/** Reports a stored task's state (`set_state`, `set_last_snapshot`: zettarepl_/state.py:99-127). */
function storedReporter(appliance: Appliance, id: number) {
  const { store } = appliance;
  const stored = store.read(() => listReplications(store.db)).find((r) => r.id === id)?.state ?? {};
  let persisted: Record<string, unknown> = { ...stored };
  let lastSnapshot = (stored.last_snapshot as string | null | undefined) ?? null;
  let current: Record<string, unknown> = { ...stored };
  const runs = runsOf(appliance);
  const notify = () => {
    const { last_snapshot: _l, ...fields } = current;
    const state = { ...fields, job: taskJob(appliance, id), last_snapshot: lastSnapshot };
    appliance.events.send(collectionUpdate('replication.query', 'CHANGED', { id, fields: { state } }));
  };
  const persist = () =>
    store.write(() => setReplicationState(store.db, id, { ...persisted, last_snapshot: lastSnapshot }));
  return {
    state(fields: Record<string, unknown>) {
      current = { ...fields, last_snapshot: lastSnapshot };
      if (fields.state === 'FINISHED' || fields.state === 'ERROR') {
        persisted = fields;
        runs.live.delete(id);
        persist();
      } else runs.live.set(id, current);
      notify();
    },
    lastSnapshot(snapshot: string) {
      lastSnapshot = snapshot;
      current = { ...current, last_snapshot: snapshot };
      if (runs.live.has(id)) runs.live.set(id, current);
      persist();
      notify();
    },
  };
}

type Reporter = ReturnType<typeof storedReporter>;
const silent: Reporter = { state: () => undefined, lastSnapshot: () => undefined };

/** The send the engine's progress text names: what ReplicationTaskSnapshotStart carries (zettarepl/replication/run.py:754-757). */
function sendOf(text: string) {
  const m = /^Sending (\d+) of (\d+): ([^@]+)@(.+)$/.exec(text);
  return m ? { sent: Number(m[1]) - 1, total: Number(m[2]), dataset: m[3]!, snapshot: m[4]! } : null;
}

/** One run of the task, its state reported and its waiting jobs told, as the observer does. */
async function execute(appliance: Appliance, key: RunKey, spec: RunSpec, report: Reporter) {
  const runs = runsOf(appliance);
  const waiters = () => [...(runs.waiting.get(key) ?? [])];
  const now = () => ({ $date: appliance.now() });
  runs.running.add(key);
  report.state({ state: 'RUNNING', datetime: now() });
  let sending: string | null = null;
  let error: string | null = null;
  try {
    const { remote } = spec;
    const engine = remote
      ? (p: ReplicationProgress) => runRemoteReplication(appliance, spec, remote, p)
      : (p: ReplicationProgress) => runLocalReplication(appliance, spec, p);
    await engine((percent, text) => {
      if (sending !== null) report.lastSnapshot(sending);
      const send = sendOf(text);
      sending = send ? `${send.dataset}@${send.snapshot}` : null;
      if (send)
        report.state({
          state: 'RUNNING',
          datetime: now(),
          progress: {
            dataset: send.dataset,
            snapshot: send.snapshot,
            snapshots_sent: send.sent,
            snapshots_total: send.total,
            bytes_sent: 0,
            bytes_total: 0,
            current: 0,
            total: 0,
          },
        });
      for (const w of waiters()) w.job.progress(percent, text);
    });
    if (sending !== null) report.lastSnapshot(sending);
    report.state({ state: 'FINISHED', datetime: now(), warnings: [] });
  } catch (err) {
    // A ReplicationError's text, or an unhandled one's `str(e)` (zettarepl/replication/run.py:213-226).
    error = err instanceof Error ? err.message : String(err);
    report.state({ state: 'ERROR', datetime: now(), error: sentence(error) });
  } finally {
    runs.running.delete(key);
  }
  for (const w of waiters()) w.settle(error);
  const again = runs.pending.get(key);
  if (again) {
    runs.pending.delete(key);
    await again();
  }
}

/**
 * Starts a run of the task (`run_task`, MW/plugins/zettarepl.py:250-256): one already running is
 * not started twice but runs again once done (zettarepl/zettarepl.py:207-222); settles when the
 * run (and any it queued) ended.
 */
export function startRun(appliance: Appliance, key: RunKey, spec: RunSpec): Promise<void> {
  const runs = runsOf(appliance);
  // The reporter reads the stored state when the run starts (a queued run, after the one before it).
  const go = () => execute(appliance, key, spec, typeof key === 'number' ? storedReporter(appliance, key) : silent);
  if (runs.running.has(key)) {
    const prior = runs.pending.get(key);
    if (!prior) runs.pending.set(key, go);
    return Promise.resolve();
  }
  return go();
}

/**
 * A job following the task's next run (`_run_replication_task_job`, MW/plugins/zettarepl.py:428-464):
 * its progress is the run's, it ends when the run ends, failing with the run's error as a sentence.
 */
export function followRun(appliance: Appliance, key: RunKey, job: JobHandle | undefined): Promise<null> {
  const runs = runsOf(appliance);
  return new Promise((resolve, reject) => {
    const set = runs.waiting.get(key) ?? new Set<Waiter>();
    runs.waiting.set(key, set);
    const waiter: Waiter = {
      job: job ?? { id: 0, progress: () => undefined },
      settle: (error) => {
        set.delete(waiter);
        if (set.size === 0) runs.waiting.delete(key);
        if (error === null) resolve(null);
        else reject(rpcErrors.call(ERRNO.EFAULT, sentence(error)));
      },
    };
    set.add(waiter);
  });
}

/**
 * A run nobody asked for through `replication.run` (the scheduler's): the observer starts the
 * "fake job" `replication.run(id, False)` when no job follows the task (MW/plugins/zettarepl.py:958-963;
 * stable/26 :994-997 with ReplicationRunOptions(really_run=False)), run by no user.
 */
export async function runScheduled(appliance: Appliance, data: ReplicationCreate & { id: number }): Promise<void> {
  let spec: RunSpec;
  try {
    spec = replicationSpec(appliance, data);
  } catch {
    return;
  }
  const runs = runsOf(appliance);
  let fake: Promise<unknown> = Promise.resolve();
  if (!runs.running.has(data.id) && !runs.waiting.has(data.id)) {
    const args = isRelease26(appliance) ? [data.id, { really_run: false }] : [data.id, false];
    let handle: JobHandle | undefined;
    // The job follows the run from its start, though the job itself starts a moment later.
    const followed = followRun(appliance, data.id, { id: 0, progress: (p, d) => handle?.progress(p, d) });
    followed.catch(() => undefined);
    const internal = new Session({ transport: 'embedded', address: 'local', secure: true });
    fake = appliance.jobs.start(internal, 'replication.run', args, undefined, (job) => {
      handle = job;
      return followed;
    }).done;
  }
  await startRun(appliance, data.id, spec);
  await fake.catch(() => undefined);
}
