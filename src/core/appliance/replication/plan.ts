// What one run of a LOCAL push replication sends, as zettarepl plans it (release/25.10.1), pure:
// the datasets and snapshots are passed in. Per source dataset of the task (a "part",
// zettarepl/replication/run.py:234-248): the target's existence and type (run.py:283-298), one step
// template per dataset in scope (run.py:392-465), then the steps (run.py:554-675): the newest
// common snapshot is the incremental base and what the source has after it is sent, in order
// (zettarepl/replication/snapshots_to_send.py); without a base, a target with snapshots is
// refused, or destroyed and sent from scratch when the task allows it. Not modelled: `replicate`,
// `properties_exclude`/`override`, encryption, resume tokens, `restrict_schedule`,
// `only_matching_schedule`, `only_from_scratch`.

import { isChild, replicatesSource, targetDatasetOf, type ReplicationScope } from '../snapshot-tasks/dataset-tree.js';
import type { Lifetime } from '../../lifetime.js';
import { nameRegexTest } from './python-regex.js';
import type { ParseSnapshotName } from '../snapshot-tasks/retention.js';

/** What the caller hands the engine: a replication task's fields as zettarepl's definition holds them (MW/plugins/zettarepl.py:688-760). */
export interface LocalReplicationSpec extends ReplicationScope {
  /** Its periodic snapshot tasks' naming schemas and `also_include_naming_schema` (naming_schema.py:11-16). */
  readonly namingSchemas: readonly string[];
  /** `name_regex`: then `namingSchemas` is empty (MW/plugins/replication.py:510-526). */
  readonly nameRegex: string | null;
  readonly retentionPolicy: 'SOURCE' | 'CUSTOM' | 'NONE';
  /** CUSTOM's `lifetime_value`/`lifetime_unit`. */
  readonly lifetime: Lifetime | null;
  readonly allowFromScratch: boolean;
  readonly readonly: 'SET' | 'REQUIRE' | 'IGNORE';
}

/** zettarepl's ReplicationError: its text is what the task's state and the job's error show (MW/plugins/zettarepl.py:462-463 makes a sentence of it). */
export class ReplicationError extends Error {}

export interface WorldDataset {
  readonly id: string;
  readonly type: 'FILESYSTEM' | 'VOLUME';
  /** `zfs get readonly`: its own value or the one it inherits. */
  readonly readonly: boolean;
}

export interface WorldSnapshot {
  readonly dataset: string;
  readonly name: string;
  /** createtxg: the order ZFS made (or received) it in. */
  readonly txg: number;
}

/** The appliance as a run sees it. */
export interface ReplicationWorld {
  readonly datasets: readonly WorldDataset[];
  readonly snapshots: readonly WorldSnapshot[];
  /** A mounted filesystem's top-level entries (`shell.ls(mountpoint)`, zettarepl/dataset/data.py:93), sorted. */
  readonly listing: (dataset: string) => readonly string[];
  readonly parse: ParseSnapshotName;
}

/** One `zfs send | zfs recv -s -F`: the snapshots the target receives, in order (several with `-I`). */
export interface Send {
  readonly snapshot: string;
  readonly receives: readonly string[];
}

export interface DatasetStep {
  readonly source: string;
  readonly target: string;
  readonly incrementalBase: string | null;
  readonly sends: readonly Send[];
  /** It is the part's own target dataset (run.py:578). */
  readonly immediate: boolean;
}

export interface PartPlan {
  readonly sourceDataset: string;
  readonly targetDataset: string;
  /** `zfs destroy -r` of targets without an incremental base, done while planning (run.py:596-604). */
  readonly destroy: readonly string[];
  /** `zfs create -p` of the target's parent, when it is missing (run.py:654-658). */
  readonly createParent: string | null;
  readonly steps: readonly DatasetStep[];
  /** The refusal met after `destroy` (zettarepl raises mid-plan, after destroying what came before). */
  readonly error: ReplicationError | null;
}

/** Python's `repr` of a dataset name: no name ZFS takes has a quote. */
const q = (s: string) => `'${s}'`;

/** Python's `str(datetime)` of a naive wall clock held in UTC fields. */
function pyDatetime(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

interface Parsed {
  readonly name: string;
  readonly datetime: Date;
}

/** parse_snapshots_names_with_multiple_schemas (zettarepl/snapshot/name.py:67-90). */
function parseNames(names: readonly string[], schemas: readonly string[], parse: ParseSnapshotName): Parsed[] {
  const found = new Map<string, Parsed>();
  for (const schema of schemas)
    for (const name of names) {
      const datetime = parse(schema, name);
      if (datetime === undefined) continue;
      const existing = found.get(name);
      if (existing === undefined) found.set(name, { name, datetime });
      else if (existing.datetime.getTime() !== datetime.getTime())
        throw new ReplicationError(
          `Snapshot name ${name} was parsed ambiguously: as ${pyDatetime(existing.datetime)}, and, ` +
            `with naming schema ${schema}, as ${pyDatetime(datetime)}`,
        );
    }
  return [...found.values()];
}

/** parsed_snapshot_sort_key (name.py:93-104) for naive names: the time, then the name. */
const byTime = (a: Parsed, b: Parsed) =>
  a.datetime.getTime() - b.datetime.getTime() || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

interface ToSend {
  readonly incrementalBase: string | null;
  readonly sends: Send[];
}

/**
 * get_snapshots_to_send_with_naming_schemas (snapshots_to_send.py:70-107): the newest snapshot both
 * sides parse is the base; what the source parses after it goes, oldest first. Its last step, "do
 * not send something that will immediately be removed by retention policy" (:98-105), compares
 * the parsed snapshots with the policy's names, which never equal, and so removes nothing: the
 * target's retention removes them after the run.
 */
function toSendBySchemas(
  src: readonly WorldSnapshot[],
  dst: readonly WorldSnapshot[],
  spec: LocalReplicationSpec,
  parse: ParseSnapshotName,
): ToSend {
  const parsedSrc = parseNames(
    src.map((s) => s.name),
    spec.namingSchemas,
    parse,
  ).sort(byTime);
  const onDst = new Set(
    parseNames(
      dst.map((s) => s.name),
      spec.namingSchemas,
      parse,
    ).map((p) => p.name),
  );
  const base = parsedSrc.filter((p) => onDst.has(p.name)).at(-1);
  const after = base === undefined ? parsedSrc : parsedSrc.filter((p) => byTime(p, base) > 0);
  return {
    incrementalBase: base?.name ?? null,
    sends: after.map((p) => ({ snapshot: p.name, receives: [p.name] })),
  };
}

/**
 * get_snapshots_to_send_with_name_pattern (snapshots_to_send.py:31-57): in createtxg order, the
 * newest source snapshot the target has (whatever its name) is the base; of those after it, the
 * ones the regex matches (`re.match(f"({regex})$")`, name_pattern.py:7-8) are sent. When all match,
 * one `-I` stream carries them (the first alone before it when there is no base).
 */
function toSendByRegex(src: readonly WorldSnapshot[], dst: readonly WorldSnapshot[], regex: string): ToSend {
  const names = [...src].sort((a, b) => a.txg - b.txg).map((s) => s.name);
  const onDst = new Set(dst.map((s) => s.name));
  let base: string | null = null;
  let after = names;
  names.forEach((name, i) => {
    if (onDst.has(name)) {
      base = name;
      after = names.slice(i + 1);
    }
  });
  const matches = nameRegexTest(regex);
  const matching = after.filter(matches);
  if (matching.length > 1 && matching.length === after.length) {
    const last = matching.at(-1)!;
    if (base === null) {
      const [first, ...rest] = matching;
      return {
        incrementalBase: base,
        sends: [
          { snapshot: first!, receives: [first!] },
          { snapshot: last, receives: rest },
        ],
      };
    }
    return { incrementalBase: base, sends: [{ snapshot: last, receives: matching }] };
  }
  return { incrementalBase: base, sends: matching.map((n) => ({ snapshot: n, receives: [n] })) };
}

/** get_snapshots_to_send (snapshots_to_send.py:20-28). */
export function snapshotsToSend(
  src: readonly WorldSnapshot[],
  dst: readonly WorldSnapshot[],
  spec: LocalReplicationSpec,
  parse: ParseSnapshotName,
): ToSend {
  return spec.nameRegex !== null ? toSendByRegex(src, dst, spec.nameRegex) : toSendBySchemas(src, dst, spec, parse);
}

const parentOf = (id: string) => (id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '');
const typeWord = (t: WorldDataset['type']) => (t === 'VOLUME' ? 'volume' : 'filesystem');

/**
 * ensure_has_no_data (zettarepl/dataset/data.py:29-69) for a mounted filesystem: its entries, less
 * the mountpoints of child datasets the task will write (themselves checked the same way), must be
 * none. A volume's `referenced` is never above 10 MiB on the emulator (no blocks), so it passes.
 */
function ensureHasNoData(world: ReplicationWorld, dataset: string, allowedChildren: readonly string[]): void {
  const d = world.datasets.find((x) => x.id === dataset);
  if (!d || d.type !== 'FILESYSTEM') return;
  const immediate = allowedChildren.filter((c) => parentOf(c) === dataset);
  const skip = new Set(allowedChildren.map((c) => c.slice(c.lastIndexOf('/') + 1)));
  const index = world
    .listing(dataset)
    .filter((n) => !skip.has(n) || !world.datasets.some((x) => x.id === `${dataset}/${n}`));
  for (const child of immediate) ensureHasNoData(world, child, allowedChildren);
  if (index.length > 0)
    throw new ReplicationError(
      `Target dataset ${q(dataset)} does not have matching snapshots but has data (e.g. ${q(index[0]!)}) and ` +
        'replication from scratch is not allowed. Refusing to overwrite existing data.',
    );
}

/** check_target_existence_and_type (run.py:283-298): the part's source exists, and its target, if any, is of its type. */
export function checkTarget(spec: LocalReplicationSpec, world: ReplicationWorld, sourceDataset: string): void {
  const targetDataset = targetDatasetOf(spec, sourceDataset);
  const source = world.datasets.find((d) => d.id === sourceDataset);
  // get_property of a missing dataset: zfs's own words, raised unhandled (run.py:287).
  if (!source) throw new ReplicationError(`cannot open '${sourceDataset}': dataset does not exist`);
  const existing = world.datasets.find((d) => d.id === targetDataset);
  if (existing && existing.type !== source.type)
    throw new ReplicationError(
      `Source ${q(sourceDataset)} is a ${typeWord(source.type)}, but target ${q(targetDataset)} already exists and is a ${typeWord(existing.type)}`,
    );
}

/**
 * Each target dataset the plan leaves (below its target, not destroyed) and whether it is readonly:
 * what handle_readonly (run.py:837-869) reads as the run receives into the target.
 */
export function readonlyAfterPlan(world: ReplicationWorld, plan: PartPlan): Map<string, boolean> {
  return new Map(
    world.datasets
      .filter((d) => isChild(d.id, plan.targetDataset) && !plan.destroy.some((x) => isChild(d.id, x)))
      .map((d) => [d.id, d.readonly]),
  );
}

/**
 * One part of a run: the source dataset `sourceDataset` of the task and what is in scope below it.
 * Throws a ReplicationError where zettarepl raises before anything changes; an error it raises
 * after destroying a target from scratch comes back in `error`.
 */
export function planReplicationPart(
  spec: LocalReplicationSpec,
  world: ReplicationWorld,
  sourceDataset: string,
): PartPlan {
  checkTarget(spec, world, sourceDataset);
  const targetDataset = targetDatasetOf(spec, sourceDataset);
  const dataset = (id: string) => world.datasets.find((d) => d.id === id);

  const snapshotsOf = (id: string) => world.snapshots.filter((s) => s.dataset === id);
  // Step templates: the source tree in name order (run.py:411, 476), what the task replicates.
  const sources = world.datasets
    .filter((d) => (spec.recursive ? isChild(d.id, sourceDataset) : d.id === sourceDataset))
    .map((d) => d.id)
    .sort()
    .filter((id) => replicatesSource(spec, id));
  // The target side as listed once (run.py:443-458): the targets that exist, with their snapshots.
  const dstExists = new Set(sources.map((s) => targetDatasetOf(spec, s)).filter((t) => dataset(t) !== undefined));
  const dstReadonly = (t: string) => dataset(t)?.readonly ?? true;

  if (spec.readonly === 'REQUIRE')
    for (const s of sources) {
      const t = targetDatasetOf(spec, s);
      if (dstExists.has(t) && !dstReadonly(t)) {
        let message =
          `Target dataset ${q(t)} exists and does not have readonly=on property, ` +
          'but replication task is set up to require this property. Refusing to replicate.';
        if (dataset(t)?.type === 'VOLUME')
          message += ` Please run "zfs set readonly=on ${t}" on the target system to fix this.`;
        throw new ReplicationError(message);
      }
    }

  const destroy: string[] = [];
  const steps: DatasetStep[] = [];
  const ignoredRoots: string[] = [];
  let createParent: string | null = null;
  const removed = (t: string) => destroy.some((d) => isChild(t, d));
  const result = (error: ReplicationError | null): PartPlan => ({
    sourceDataset,
    targetDataset,
    destroy,
    createParent,
    steps,
    error,
  });
  for (const [i, src] of sources.entries()) {
    const immediate = i === 0;
    if (ignoredRoots.some((root) => isChild(src, root))) continue;
    const dst = targetDatasetOf(spec, src);
    const srcSnapshots = snapshotsOf(src);
    const dstSnapshots = removed(dst) ? [] : snapshotsOf(dst);
    let toSend: ToSend;
    try {
      toSend = snapshotsToSend(srcSnapshots, dstSnapshots, spec, world.parse);
    } catch (e) {
      if (e instanceof ReplicationError) return result(e);
      throw e;
    }
    if (toSend.incrementalBase === null && toSend.sends.length > 0) {
      if (dstSnapshots.length > 0) {
        if (!spec.allowFromScratch)
          return result(
            new ReplicationError(
              `No incremental base on dataset ${q(src)} and replication from scratch is not allowed`,
            ),
          );
        destroy.push(dst);
      } else if (!spec.allowFromScratch && immediate) {
        const allowed = spec.recursive
          ? sources
              .filter((d) => d !== src && isChild(d, src) && !spec.exclude.includes(d))
              .map((d) => targetDatasetOf(spec, d))
              .filter((t) => dstExists.has(t) && !removed(t))
          : [];
        try {
          if (!removed(dst)) ensureHasNoData(world, dst, allowed);
        } catch (e) {
          if (e instanceof ReplicationError) return result(e);
          throw e;
        }
      }
    }
    if (toSend.sends.length === 0) {
      if (immediate && toSend.incrementalBase === null)
        return result(new ReplicationError(`Dataset ${q(src)} does not have any matching snapshots to replicate`));
      if (srcSnapshots.length === 0) ignoredRoots.push(src);
      continue;
    }
    if (immediate && (removed(dst) || !dstExists.has(dst))) {
      const parent = parentOf(dst);
      if (parent.includes('/') && dataset(parent) === undefined) createParent = parent;
    }
    steps.push({ source: src, target: dst, incrementalBase: toSend.incrementalBase, sends: toSend.sends, immediate });
  }
  return result(null);
}

/** Every part planned over the same world (what a dry run would show). */
export function planLocalReplication(spec: LocalReplicationSpec, world: ReplicationWorld): PartPlan[] {
  return [...spec.sourceDatasets].sort().map((s) => planReplicationPart(spec, world, s));
}
