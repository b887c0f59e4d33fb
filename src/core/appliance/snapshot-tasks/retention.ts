// Which snapshots retention destroys, as zettarepl decides (release/25.10.1): every "owner" of a
// dataset's snapshots has its say — each periodic snapshot task whose naming schema parses the
// name and whose schedule matches its time, each replication that still has to send it, and the
// removal date a snapshot carries (org.truenas:destroy_at_…, which fixate_removal_date writes) — and
// a snapshot goes only when it has an owner, some owner wants snapshots deleted, and none wants this
// one kept (zettarepl/retention/calculate.py:27-87). A name no owner's schema parses (a manual
// snapshot) has no owner and stays, unless it carries a removal date; the newest snapshot of each
// naming schema on a dataset stays even when expired (calculate.py:76-85); and a held or cloned
// snapshot survives the destroy (zettarepl/snapshot/destroy.py:53-61 skips what ZFS refuses).
//
// Times are wall clocks, as zettarepl's naive datetimes: a Date whose UTC fields are the
// appliance's local time (core/wall-clock.ts `wallClock`). The naming schema parser is passed in and must
// answer so: the time written in the name, in UTC fields, or undefined when the name does not fit.
// Pure: the snapshots, tasks, replications and the time are passed in.

import { belongsToTree, replicatesSource, replicatesTarget, sourceDatasetOf, targetDatasetOf } from './dataset-tree.js';
import type { ReplicationScope } from './dataset-tree.js';
import { lifetimeMs, type Lifetime } from '../../lifetime.js';
import { compileSchedule, isDueAtWallClock, shouldRunAt, type Schedule } from './schedule.js';
import { wallClock } from '../../wall-clock.js';

/** The time a name written by the schema holds, as a wall clock in UTC fields; undefined when it does not parse. */
export type ParseSnapshotName = (schema: string, name: string) => Date | undefined;

export interface SnapshotRef {
  readonly dataset: string;
  readonly name: string;
}

export interface RetentionSnapshot extends SnapshotRef {
  /** Its user holds' tags: ZFS refuses to destroy it while it has one. */
  readonly holds?: readonly string[];
  /** A clone depends on it: ZFS refuses to destroy it. */
  readonly hasClones?: boolean;
  /** Its removal date property, as a wall clock (parseRemovalDate). */
  readonly removalDate?: Date;
}

/** An enabled periodic snapshot task, as zettarepl's definition holds it (MW/plugins/zettarepl.py:668-683). */
export interface RetentionTask {
  readonly dataset: string;
  readonly recursive: boolean;
  readonly exclude: readonly string[];
  readonly namingSchema: string;
  readonly schedule: Schedule;
  readonly lifetime: Lifetime;
}

/**
 * What a replication sends: its scope and its naming schemas (its periodic tasks' and
 * `also_include_naming_schema`: zettarepl/replication/task/naming_schema.py:11-16). Not modelled:
 * `name_regex`, `restrict_schedule` and `only_matching_schedule` (should_replicate.py:32-43);
 * every name its schemas parse counts.
 */
export interface ReplicationSpec extends ReplicationScope {
  readonly namingSchemas: readonly string[];
}

/**
 * A push replication that still has snapshots to send: one pending or running, or any with
 * `hold_pending_snapshots` (zettarepl/zettarepl.py:355-414). `targetSnapshots` is what its target
 * holds now.
 */
export interface ReplicationNeed extends ReplicationSpec {
  readonly targetSnapshots: readonly SnapshotRef[];
  /**
   * Its `restrict_schedule`, and its `schedule` when `only_matching_schedule`: it owns only the
   * snapshots whose time they all run at (replication_task_should_replicate_parsed_snapshot,
   * zettarepl/replication/task/should_replicate.py:32-43).
   */
  readonly snapshotSchedules?: readonly Schedule[];
}

interface Parsed {
  /** null: no schema parsed it (zettarepl's `None` naming schema). */
  readonly schema: string | null;
  readonly name: string;
  readonly datetime: Date | undefined;
}

/** zettarepl/retention/snapshot_owner.py:11-25. */
interface Owner {
  readonly schemas: ReadonlySet<string | null>;
  ownsDataset(dataset: string): boolean;
  ownsSnapshot(dataset: string, parsed: Parsed): boolean;
  readonly wantsToDelete: boolean;
  shouldRetain(dataset: string, parsed: Parsed): boolean;
}

class AmbiguousName extends Error {}

/**
 * Each name parsed by the first schema that parses it; a name two schemas read as different times
 * is ambiguous. With `null` among the schemas, names none parses come too (zettarepl/snapshot/name.py:67-90).
 */
function parseWithSchemas(
  names: readonly string[],
  schemas: Iterable<string | null>,
  parse: ParseSnapshotName,
): Parsed[] {
  const parsed = new Map<string, Parsed>();
  let withNone = false;
  for (const schema of schemas) {
    if (schema === null) {
      withNone = true;
      continue;
    }
    for (const name of names) {
      const datetime = parse(schema, name);
      if (datetime === undefined) continue;
      const existing = parsed.get(name);
      if (existing === undefined) parsed.set(name, { schema, name, datetime });
      else if (existing.datetime?.getTime() !== datetime.getTime()) {
        throw new AmbiguousName(`Snapshot name ${name} was parsed ambiguously`);
      }
    }
  }
  const result = [...parsed.values()];
  if (withNone)
    for (const name of names) if (!parsed.has(name)) result.push({ schema: null, name, datetime: undefined });
  return result;
}

/** zettarepl's idealized_datetime: the minute, seconds dropped (zettarepl/utils/datetime.py:10-11). */
function idealized(wall: Date): number {
  return Math.floor(wall.getTime() / 60_000) * 60_000;
}

/** zettarepl/retention/calculate.py:27-87, one dataset's snapshots. */
function datasetSnapshotsToRemove(
  owners: readonly Owner[],
  dataset: string,
  names: readonly string[],
  parse: ParseSnapshotName,
): string[] {
  const schemas = new Set<string | null>();
  for (const owner of owners) for (const schema of owner.schemas) schemas.add(schema);
  let parsed: Parsed[];
  try {
    parsed = parseWithSchemas(names, schemas, parse);
  } catch (e) {
    // calculate.py:33-35: a dataset whose names parse ambiguously loses nothing.
    if (e instanceof AmbiguousName) return [];
    throw e;
  }

  const newest = new Map<string, Parsed>();
  const left = new Map<string | null, Set<string>>();
  for (const p of parsed) {
    if (p.schema !== null) {
      const current = newest.get(p.schema);
      if (current === undefined || (current.datetime as Date) < (p.datetime as Date)) newest.set(p.schema, p);
    }
    const set = left.get(p.schema) ?? new Set<string>();
    set.add(p.name);
    left.set(p.schema, set);
  }

  const result: string[] = [];
  for (const p of parsed) {
    const snapshotOwners = owners.filter(
      (owner) => (owner.schemas.has(p.schema) || owner.schemas.has(null)) && owner.ownsSnapshot(dataset, p),
    );
    if (
      snapshotOwners.length > 0 &&
      snapshotOwners.some((owner) => owner.wantsToDelete) &&
      !snapshotOwners.some((owner) => owner.shouldRetain(dataset, p))
    ) {
      left.get(p.schema)?.delete(p.name);
      result.push(p.name);
    }
  }
  // calculate.py:76-85: the newest snapshot of a naming schema is never the last one to go.
  for (const [schema, names] of left) {
    if (schema === null || names.size > 0) continue;
    const keep = newest.get(schema)?.name;
    const at = keep === undefined ? -1 : result.indexOf(keep);
    if (at >= 0) result.splice(at, 1);
  }
  return result;
}

/** calculate.py:16-24, then what ZFS lets go: a held or cloned snapshot stays (destroy.py:53-61). */
function snapshotsToRemove(
  owners: readonly Owner[],
  snapshots: readonly RetentionSnapshot[],
  parse: ParseSnapshotName,
): SnapshotRef[] {
  const byDataset = new Map<string, RetentionSnapshot[]>();
  for (const s of snapshots) byDataset.set(s.dataset, [...(byDataset.get(s.dataset) ?? []), s]);
  const result: SnapshotRef[] = [];
  for (const dataset of [...byDataset.keys()].sort()) {
    const here = byDataset.get(dataset) ?? [];
    const names = here.map((s) => s.name);
    const remove = new Set(
      datasetSnapshotsToRemove(
        owners.filter((owner) => owner.ownsDataset(dataset)),
        dataset,
        names,
        parse,
      ),
    );
    for (const s of here) {
      if (remove.has(s.name) && (s.holds ?? []).length === 0 && s.hasClones !== true) {
        result.push({ dataset, name: s.name });
      }
    }
  }
  return result;
}

/** zettarepl/snapshot/task/snapshot_owner.py:17-37. */
function periodicTaskOwner(task: RetentionTask, now: Date): Owner {
  // should_run, asked of each snapshot its schema names: a schedule croniter refuses raises only
  // for one inside its window (schedule.ts shouldRunAt).
  const shouldRun = shouldRunAt(task.schedule);
  const deleteBefore = idealized(now) - lifetimeMs(task.lifetime);
  return {
    schemas: new Set([task.namingSchema]),
    ownsDataset: (dataset) => belongsToTree(dataset, task.dataset, task.recursive, task.exclude),
    ownsSnapshot: (_, p) => p.datetime !== undefined && shouldRun(p.datetime),
    wantsToDelete: true,
    shouldRetain: (_, p) => p.datetime !== undefined && idealized(p.datetime) > deleteBefore,
  };
}

/** zettarepl/retention/snapshot_removal_date_snapshot_owner.py:14-33: a removal date keeps its snapshot until it passes. */
function removalDateOwner(snapshots: readonly RetentionSnapshot[], now: Date): Owner | undefined {
  const dates = new Map<string, Date>();
  for (const s of snapshots) if (s.removalDate) dates.set(`${s.dataset}@${s.name}`, s.removalDate);
  if (dates.size === 0) return undefined;
  const datasets = new Set([...dates.keys()].map((key) => key.slice(0, key.indexOf('@'))));
  return {
    schemas: new Set([null]),
    ownsDataset: (dataset) => datasets.has(dataset),
    ownsSnapshot: (dataset, p) => dates.has(`${dataset}@${p.name}`),
    wantsToDelete: true,
    shouldRetain: (dataset, p) => (dates.get(`${dataset}@${p.name}`) as Date).getTime() > now.getTime(),
  };
}

function byDataset(snapshots: readonly SnapshotRef[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const s of snapshots) map.set(s.dataset, [...(map.get(s.dataset) ?? []), s.name]);
  return map;
}

/** The newest snapshot both sides hold, the base of the next incremental send (zettarepl/replication/snapshots_to_send.py:60-67). */
function incrementalBase(source: readonly Parsed[], target: readonly Parsed[]): string | undefined {
  const onTarget = new Set(target.map((p) => p.name));
  const common = source
    .filter((p) => onTarget.has(p.name))
    .sort((a, b) => (a.datetime?.getTime() ?? 0) - (b.datetime?.getTime() ?? 0) || (a.name < b.name ? -1 : 1));
  return common.at(-1)?.name;
}

/**
 * Whether a push replication still needs this source snapshot: its target lacks it, or it is the
 * incremental base of the next send (zettarepl/replication/task/snapshot_owner.py:78-93).
 * `sourceSnapshots` are the source side's snapshots. Names its schemas read ambiguously stop
 * retention altogether (unlessAmbiguous), so then every snapshot is needed.
 */
export function replicationNeedsSnapshot(
  need: ReplicationNeed,
  sourceSnapshots: readonly SnapshotRef[],
  snapshot: SnapshotRef,
  parse: ParseSnapshotName,
): boolean {
  const ask = () =>
    pendingReplicationOwner(need, byDataset(sourceSnapshots), parse).shouldRetain(snapshot.dataset, {
      schema: null,
      name: snapshot.name,
      datetime: undefined,
    });
  return unlessAmbiguous(ask, true);
}

/** A pending push replication as a snapshot owner that never wants to delete (snapshot_owner.py:60-93). */
function pendingReplicationOwner(
  need: ReplicationNeed,
  sourceSnapshots: ReadonlyMap<string, readonly string[]>,
  parse: ParseSnapshotName,
): Owner {
  const schemas = new Set<string | null>(need.namingSchemas);
  // Every dataset's names are parsed up front, as the owner's constructor does: one ambiguous name
  // anywhere stops the run (snapshot_owner.py:66-73).
  const source = parseAll(sourceSnapshots, schemas, parse);
  const target = parseAll(byDataset(need.targetSnapshots), schemas, parse);
  const schedules = (need.snapshotSchedules ?? []).map(compileSchedule);
  return {
    schemas,
    ownsDataset: (dataset) => replicatesSource(need, dataset),
    ownsSnapshot: (_, p) =>
      schedules.every((schedule) => {
        // CronSchedule.should_run of a name no schema parsed (its datetime None) raises in
        // zettarepl, which ends the retention run (zettarepl/zettarepl.py:324-335).
        if (p.datetime === undefined) throw new Error('a schedule cannot match a snapshot without a time');
        return isDueAtWallClock(schedule, p.datetime);
      }),
    wantsToDelete: false,
    shouldRetain: (dataset, p) => {
      if (!replicatesSource(need, dataset)) return false;
      const here = source.get(dataset) ?? [];
      const copied = target.get(targetDatasetOf(need, dataset)) ?? [];
      const onSource = here.some((s) => s.name === p.name);
      const onTarget = copied.some((s) => s.name === p.name);
      return (onSource && !onTarget) || p.name === incrementalBase(here, copied);
    },
  };
}

function parseAll(
  snapshots: ReadonlyMap<string, readonly string[]>,
  schemas: ReadonlySet<string | null>,
  parse: ParseSnapshotName,
): Map<string, Parsed[]> {
  return new Map([...snapshots].map(([dataset, names]) => [dataset, parseWithSchemas(names, schemas, parse)]));
}

export interface PeriodicRetentionInput {
  /** The appliance's snapshots (those of the tasks' and the replications' datasets, at least). */
  readonly snapshots: readonly RetentionSnapshot[];
  /** The enabled periodic snapshot tasks (MW/plugins/zettarepl.py:621). */
  readonly tasks: readonly RetentionTask[];
  readonly replications?: readonly ReplicationNeed[];
  /** The instant of the scheduler's tick; zettarepl compares in the zone's wall clock. */
  readonly now: Date;
  readonly timezone: string;
  readonly parse: ParseSnapshotName;
}

/**
 * The local snapshots retention destroys at `now`, dataset by dataset in name order
 * (zettarepl/zettarepl.py:355-436 `_run_local_retention`).
 */
export function periodicSnapshotRetention(input: PeriodicRetentionInput): SnapshotRef[] {
  const now = wallClock(input.now, input.timezone);
  return unlessAmbiguous((): SnapshotRef[] => {
    const owners: Owner[] = input.tasks.map((task) => periodicTaskOwner(task, now));
    const local = byDataset(input.snapshots);
    for (const need of input.replications ?? []) owners.push(pendingReplicationOwner(need, local, input.parse));
    // The middleware always asks for removal dates ("use-removal-dates": True, MW/plugins/zettarepl.py:649).
    const dated = removalDateOwner(input.snapshots, now);
    if (dated) owners.push(dated);
    return snapshotsToRemove(owners, input.snapshots, input.parse);
  }, []);
}

/**
 * A replication's names parsed ambiguously stop the whole retention run in zettarepl (the owner's
 * constructor raises, and _run_retention logs it: zettarepl/zettarepl.py:324-335): nothing goes,
 * and so every snapshot is needed.
 */
function unlessAmbiguous<T>(run: () => T, otherwise: T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof AmbiguousName) return otherwise;
    throw e;
  }
}

/**
 * The snapshots a task owns: on its datasets, named by its schema, at a time its schedule runs
 * (MW/plugins/zettarepl_/snapshot_removal_date.py:60-78) — what delete_will_change_retention_for
 * lists, and update_will_change_retention_for as the old task's less the new one's
 * (MW/plugins/snapshot_/task_retention.py:19-55).
 */
export function taskSnapshots(
  task: Omit<RetentionTask, 'lifetime'>,
  snapshots: readonly SnapshotRef[],
  parse: ParseSnapshotName,
): SnapshotRef[] {
  // Asked snapshot by snapshot, as zettarepl's owner is (snapshot_owner.py:25-30): a schedule
  // croniter refuses fails only once a snapshot in the tree parses to a time in its window.
  const shouldRun = shouldRunAt(task.schedule);
  return snapshots.filter((s) => {
    if (!belongsToTree(s.dataset, task.dataset, task.recursive, task.exclude)) return false;
    const datetime = parse(task.namingSchema, s.name);
    return datetime !== undefined && shouldRun(datetime);
  });
}

/** A replication's retention of its target (`retention_policy`, `lifetime_*`, `lifetimes`). */
export type TargetRetentionPolicy =
  | { readonly policy: 'SOURCE' }
  | { readonly policy: 'NONE' }
  | {
      readonly policy: 'CUSTOM';
      readonly lifetime: Lifetime;
      readonly lifetimes?: readonly { readonly schedule: Schedule; readonly lifetime: Lifetime }[];
    };

/**
 * The target names a policy deletes (zettarepl/replication/task/retention_policy.py:47-95):
 * SOURCE, what the source no longer has; CUSTOM, what is older than its lifetime (the longest
 * lifetime whose schedule matches the snapshot's time, or the policy's own); NONE, nothing.
 * `source` and `target` are the names its naming schemas parse, with their wall-clock times.
 */
export function policyDeletes(
  policy: TargetRetentionPolicy,
  now: Date,
  source: readonly { readonly name: string }[],
  target: readonly { readonly name: string; readonly datetime: Date }[],
): string[] {
  switch (policy.policy) {
    case 'SOURCE': {
      const onSource = new Set(source.map((s) => s.name));
      return target.filter((t) => !onSource.has(t.name)).map((t) => t.name);
    }
    case 'CUSTOM': {
      const lifetimes = [...(policy.lifetimes ?? [])]
        .map((l) => ({ schedule: compileSchedule(l.schedule), ms: lifetimeMs(l.lifetime) }))
        .sort((a, b) => b.ms - a.ms);
      return target
        .filter((t) => {
          const ms = lifetimes.find((l) => isDueAtWallClock(l.schedule, t.datetime))?.ms ?? lifetimeMs(policy.lifetime);
          return t.datetime.getTime() < now.getTime() - ms;
        })
        .map((t) => t.name);
    }
    case 'NONE':
      return [];
  }
}

/** Executed replication on its target (zettarepl/replication/task/snapshot_owner.py:114-148). */
function targetOwner(
  replication: ReplicationSpec,
  policy: TargetRetentionPolicy,
  source: Map<string, string[]>,
  target: Map<string, string[]>,
  now: Date,
  parse: ParseSnapshotName,
): Owner {
  const schemas = new Set<string | null>(replication.namingSchemas);
  // Both sides parsed up front, as the owner's constructor does (snapshot_owner.py:122-129).
  const parsedSource = parseAll(source, schemas, parse);
  const parsedTarget = parseAll(target, schemas, parse);
  const deletes = new Map<string, Set<string>>();
  for (const [dataset, onTarget] of parsedTarget) {
    if (!replicatesTarget(replication, dataset)) continue;
    const onSource = parsedSource.get(sourceDatasetOf(replication, dataset)) ?? [];
    const dated = onTarget.flatMap((p) => (p.datetime ? [{ name: p.name, datetime: p.datetime }] : []));
    deletes.set(dataset, new Set(policyDeletes(policy, now, onSource, dated)));
  }
  return {
    schemas,
    ownsDataset: (dataset) => replicatesTarget(replication, dataset),
    ownsSnapshot: () => true,
    wantsToDelete: true,
    shouldRetain: (dataset, p) => replicatesTarget(replication, dataset) && !deletes.get(dataset)?.has(p.name),
  };
}

export interface TargetRetentionInput {
  readonly replication: ReplicationSpec;
  readonly policy: TargetRetentionPolicy;
  readonly sourceSnapshots: readonly SnapshotRef[];
  readonly targetSnapshots: readonly RetentionSnapshot[];
  readonly now: Date;
  readonly timezone: string;
  readonly parse: ParseSnapshotName;
}

/**
 * The target snapshots a push replication's retention destroys after it ran
 * (zettarepl/zettarepl.py:438-476 `_run_remote_retention`): its policy's deletes, less the newest
 * of each naming schema and what is held or cloned.
 */
export function targetSnapshotRetention(input: TargetRetentionInput): SnapshotRef[] {
  const now = wallClock(input.now, input.timezone);
  return unlessAmbiguous(() => {
    const owner = targetOwner(
      input.replication,
      input.policy,
      byDataset(input.sourceSnapshots),
      byDataset(input.targetSnapshots),
      now,
      input.parse,
    );
    return snapshotsToRemove([owner], input.targetSnapshots, input.parse);
  }, []);
}
