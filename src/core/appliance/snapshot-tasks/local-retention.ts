import { listSnapshotTasks } from '../../store/snapshot-tasks.js';
import { listHolds } from '../../store/snapshot-holds.js';
import { listSnapshots } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { parseTaskSnapshotName } from './appliance-clock.js';
import { periodicSnapshotRetention } from './retention.js';
import { destroySnapshots } from './run.js';
import { inZettarepl, retentionTask } from './tasks.js';

// Local retention after a tick that ran tasks (zettarepl/zettarepl.py:105-119 spawns it through
// _spawn_replication_tasks, :207-222, 310-322, and runs _run_local_retention, :355-436 at
// release/25.10.1): the enabled tasks' snapshots past their lifetime go, as retention.ts decides.
// Not modelled yet: replications (none exist) and removal dates (the emulator writes none).

/** Destroys what retention removes at `at` (the tick's instant); the tasks handed to zettarepl are the enabled ones (MW/plugins/zettarepl.py:621) it accepts. */
export async function runLocalRetention(appliance: Appliance, at: number): Promise<void> {
  const { store } = appliance;
  const [tasks, snapshots, holds] = store.read(() => [
    listSnapshotTasks(store.db).filter(inZettarepl),
    listSnapshots(store.db),
    listHolds(store.db),
  ]);
  if (tasks.length === 0) return;
  const doomed = (): readonly { dataset: string; name: string }[] => {
    try {
      return periodicSnapshotRetention({
        snapshots: snapshots.map((s) => ({
          dataset: s.dataset,
          name: s.id.slice(s.id.indexOf('@') + 1),
          holds: [...(holds.get(s.id)?.keys() ?? [])],
        })),
        tasks: tasks.map(retentionTask),
        now: new Date(at),
        timezone: APPLIANCE_TIMEZONE,
        parse: parseTaskSnapshotName,
      });
    } catch {
      // zettarepl runs retention in its own thread and logs what it raises ("Unhandled exception
      // while running retention"), destroying nothing (zettarepl/zettarepl.py:324-334): a schedule
      // croniter refuses (a minute of "" the middleware stores, see schedule.ts) fails no run and no tick.
      return [];
    }
  };
  const ids = new Set(doomed().map((s) => `${s.dataset}@${s.name}`));
  const byPool = new Map<string, typeof snapshots>();
  for (const s of snapshots) if (ids.has(s.id)) byPool.set(s.pool, [...(byPool.get(s.pool) ?? []), s]);
  for (const [pool, list] of byPool) await destroySnapshots(appliance, list, pool);
}
