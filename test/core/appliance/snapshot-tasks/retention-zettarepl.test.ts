import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  periodicSnapshotRetention,
  targetSnapshotRetention,
  type ReplicationNeed,
  type ReplicationSpec,
  type RetentionTask,
  type SnapshotRef,
  type TargetRetentionPolicy,
} from '../../../../src/core/appliance/snapshot-tasks/retention.js';
import { parseStrftime } from '../../../helpers/strftime-parse.js';

// What zettarepl's own local retention destroyed in 120 random scenarios — tasks with schedules,
// windows, recursion and excludes, manual names, removal dates, a pending replication and, every
// tenth, two schemas that read some names differently: test/fixtures/zettarepl-retention/generate.py
// says how they were recorded (zettarepl release/25.10.1, croniter 1.3.5). The appliance's zone is
// UTC there, so the wall clock is the instant.
interface Scenario {
  readonly now: string;
  readonly tasks: readonly RetentionTask[];
  readonly snapshots: readonly { dataset: string; name: string; removalDate?: string }[];
  readonly replications: readonly ReplicationNeed[];
  readonly expected: readonly string[];
}

const scenarios = JSON.parse(
  readFileSync(new URL('../../../fixtures/zettarepl-retention/scenarios.json', import.meta.url), 'utf8'),
) as Scenario[];

const at = (iso: string) => new Date(`${iso}:00Z`);

describe("periodicSnapshotRetention against zettarepl's calculate_snapshots_to_remove", () => {
  it.each(scenarios.map((s, i) => [i, s] as const))('scenario %i', (_, s) => {
    const removed = periodicSnapshotRetention({
      tasks: s.tasks,
      snapshots: s.snapshots.map((snap) => ({
        dataset: snap.dataset,
        name: snap.name,
        ...(snap.removalDate === undefined ? {} : { removalDate: at(snap.removalDate) }),
      })),
      replications: s.replications,
      now: at(s.now),
      timezone: 'UTC',
      parse: parseStrftime,
    });
    expect(removed.map((r) => `${r.dataset}@${r.name}`).sort()).toEqual(s.expected);
  });
});

// And on a push replication's target: 80 scenarios of SOURCE, CUSTOM (with schedule-bound
// lifetimes) and NONE policies, recursive or not, an excluded child, names on one side only and
// manual ones (test/fixtures/zettarepl-retention/generate-target.py).
interface TargetScenario {
  readonly now: string;
  readonly replication: ReplicationSpec;
  readonly policy: TargetRetentionPolicy;
  readonly source: readonly SnapshotRef[];
  readonly target: readonly SnapshotRef[];
  readonly expected: readonly string[];
}

const targetScenarios = JSON.parse(
  readFileSync(new URL('../../../fixtures/zettarepl-retention/target-scenarios.json', import.meta.url), 'utf8'),
) as TargetScenario[];

describe("targetSnapshotRetention against zettarepl's remote retention", () => {
  it.each(targetScenarios.map((s, i) => [i, s.policy.policy, s] as const))('scenario %i (%s)', (_, __, s) => {
    const removed = targetSnapshotRetention({
      replication: s.replication,
      policy: s.policy,
      sourceSnapshots: s.source,
      targetSnapshots: s.target,
      now: at(s.now),
      timezone: 'UTC',
      parse: parseStrftime,
    });
    expect(removed.map((r) => `${r.dataset}@${r.name}`).sort()).toEqual(s.expected);
  });
});
