import type { Appliance } from '../appliance.js';
import { isDue, type Schedule } from '../snapshot-tasks/schedule.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { runScheduled } from './runs.js';
import { replicationEntries, replicationInput } from './tasks.js';

/**
 * The replications zettarepl runs at a scheduler tick (zettarepl/zettarepl.py:84-121 at
 * release/25.10.1): of the enabled tasks (the definition's, MW/plugins/zettarepl.py:632), an
 * automatic one with its own schedule when that schedule is due, and an automatic one without a
 * schedule when a periodic snapshot task it is bound to ran at this tick (:194-205), whether or
 * not that task's snapshot was taken.
 */
function dueReplications(appliance: Appliance, now: number, ranTasks: ReadonlySet<number>) {
  return replicationEntries(appliance).filter((r) => {
    if (!r.enabled || !r.auto) return false;
    if (r.schedule === null) return r.periodic_snapshot_tasks.some((t) => ranTasks.has(t.id));
    try {
      return isDue(r.schedule, new Date(now), APPLIANCE_TIMEZONE);
    } catch {
      return false;
    }
  });
}

/** Runs the tick's replications side by side (zettarepl's threads, :280-283); settles when they ended. */
export async function runDueReplications(appliance: Appliance, now: number, ranTasks: ReadonlySet<number>) {
  const due = dueReplications(appliance, now, ranTasks);
  await Promise.all(due.map((r) => runScheduled(appliance, { ...replicationInput(r), id: r.id })));
}

/** The schedules of the replications zettarepl's scheduler holds: enabled, automatic, with a schedule of their own. */
export function replicationSchedules(appliance: Appliance): Schedule[] {
  return replicationEntries(appliance).flatMap((r) => (r.enabled && r.auto && r.schedule !== null ? [r.schedule] : []));
}
