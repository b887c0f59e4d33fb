// Which target snapshots a push replication's retention destroys, wherever the target is: on this
// appliance (a LOCAL run, run.ts) or on another `stor serve` (an SSH push, remote.ts, which asks the
// target to destroy them). Pure: both sides' snapshots and the time are passed in; the rules are
// snapshot-tasks/retention.ts's (zettarepl's owners and calculate.py), the same in release/25.10.1
// and stable/26.

import { parseTaskSnapshotName } from '../snapshot-tasks/appliance-clock.js';
import { isChild, replicatesTarget, sourceDatasetOf, targetDatasetOf } from '../snapshot-tasks/dataset-tree.js';
import { targetSnapshotRetention, type SnapshotRef, type TargetRetentionPolicy } from '../snapshot-tasks/retention.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { snapshotsToSend, type LocalReplicationSpec, type WorldSnapshot } from './plan.js';

/** A target snapshot as retention sees it: held or not (ZFS refuses to destroy a held one). */
export interface TargetSnapshot extends WorldSnapshot {
  readonly held: boolean;
}

function policyOf(spec: LocalReplicationSpec): TargetRetentionPolicy {
  if (spec.retentionPolicy === 'CUSTOM') {
    if (!spec.lifetime) throw new Error('a CUSTOM retention policy needs its lifetime');
    return { policy: 'CUSTOM', lifetime: spec.lifetime };
  }
  return { policy: spec.retentionPolicy };
}

/**
 * The target snapshots the task's retention destroys after a run (ExecutedReplicationTaskSnapshotOwner,
 * zettarepl/replication/task/snapshot_owner.py:114-148, as zettarepl.py:438-476 `_run_remote_retention`
 * uses it): of `source`, those under the task's source datasets count; of `target`, those under
 * its target. Only names its naming schemas parse are owned (calculate.py:27-35), the newest of a
 * schema stays, and a held one survives (destroy.py:53-61). With a name regex every name counts,
 * none parsed (`None` naming schema, snapshot_owner.py:36-42): SOURCE removes what the source lacks,
 * and the newest-of-a-schema rule has no schema to keep. `now` is the source's clock, as
 * zettarepl's retention runs on the source.
 */
export function replicationRetention(
  spec: LocalReplicationSpec,
  source: readonly WorldSnapshot[],
  target: readonly TargetSnapshot[],
  now: number,
): SnapshotRef[] {
  const sourceRefs = source.filter((s) => spec.sourceDatasets.some((d) => isChild(s.dataset, d)));
  const targetRefs = target
    .filter((s) => replicatesTarget(spec, s.dataset))
    .map((s) => ({ dataset: s.dataset, name: s.name, holds: s.held ? ['held'] : [] }));
  if (spec.nameRegex !== null) {
    if (spec.retentionPolicy !== 'SOURCE') return [];
    const onSource = new Set(sourceRefs.map((s) => `${s.dataset}@${s.name}`));
    return targetRefs
      .filter((t) => t.holds.length === 0 && !onSource.has(`${sourceDatasetOf(spec, t.dataset)}@${t.name}`))
      .map(({ dataset, name }) => ({ dataset, name }));
  }
  return targetSnapshotRetention({
    replication: spec,
    policy: policyOf(spec),
    sourceSnapshots: sourceRefs,
    targetSnapshots: targetRefs,
    now: new Date(now),
    timezone: APPLIANCE_TIMEZONE,
    parse: parseTaskSnapshotName,
  });
}

/**
 * pre_retention (zettarepl/replication/pre_retention.py:20-63): before a part sends, the task's
 * retention on the part's target only, less each target dataset's incremental base — the newest
 * snapshot both sides hold, which the part's sends start from.
 */
export function retentionBeforePart(
  spec: LocalReplicationSpec,
  source: readonly WorldSnapshot[],
  target: readonly TargetSnapshot[],
  part: string,
  now: number,
): SnapshotRef[] {
  const root = targetDatasetOf(spec, part);
  const doomed = replicationRetention(spec, source, target, now).filter((s) => isChild(s.dataset, root));
  const keep = new Set<string>();
  for (const dataset of new Set(doomed.map((s) => s.dataset))) {
    const src = source.filter((s) => s.dataset === sourceDatasetOf(spec, dataset));
    const dst = target.filter((s) => s.dataset === dataset);
    try {
      const base = snapshotsToSend(src, dst, spec, parseTaskSnapshotName).incrementalBase;
      if (base !== null) keep.add(`${dataset}@${base}`);
    } catch {
      // Names parsed ambiguously: the retention owner's constructor would have raised first.
      return [];
    }
  }
  return doomed.filter((s) => !keep.has(`${s.dataset}@${s.name}`));
}
