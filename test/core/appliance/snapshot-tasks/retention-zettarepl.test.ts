import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  periodicSnapshotRetention,
  type ReplicationNeed,
  type RetentionTask,
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
