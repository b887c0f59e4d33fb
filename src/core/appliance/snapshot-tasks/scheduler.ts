import { listSnapshotTasks, type SnapshotTaskRecord } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { replicationSchedules, runDueReplications } from '../replication-tasks/scheduled.js';
import { APPLIANCE_TIMEZONE } from '../system/info.js';
import { runLocalRetention } from './local-retention.js';
import { runSnapshotTask, taskSnapshotName } from './run.js';
import { ScheduleError, shouldRunAt } from './schedule.js';
import { wallClock } from '../../wall-clock.js';
import { inZettarepl } from './tasks.js';

// zettarepl's scheduler for the periodic snapshot tasks (release/25.10.1): once a UTC minute
// (Clock, zettarepl/scheduler/clock.py:36-57) every enabled task whose schedule is due at that
// minute's wall clock in the appliance's zone runs (Scheduler.schedule, scheduler/scheduler.py:26-43),
// then the replications due at that tick (replication-tasks/scheduled.ts), and then local retention
// (zettarepl/zettarepl.py:105-119, 207-222). The clock hands out the
// minute it sees, never the ones it slept through: minutes the server was down are not caught up
// and a minute already seen is not run again (clock.py:44-55); a clock stepped back runs nothing at
// that tick and is followed from there, so minutes it reaches again run again (clock.py:40-42, 56-57).
// Time is passed in (`tick`), so tests drive it minute by minute;
// `stor serve` ticks it from a timer (server/minute-timer.ts). The embedded target lives for one
// command and ticks nothing.

const MINUTE = 60_000;

/**
 * The snapshot tasks zettarepl's scheduler runs at the tick at `now` (`run`'s tick too), or
 * undefined when the tick is lost: the scheduler asks every task it holds whether it runs, the
 * periodic snapshot tasks and the automatic replications with a schedule of their own
 * (scheduler.py:34-41, zettarepl/zettarepl.py:84-91), and a schedule croniter refuses (a field the
 * middleware stored as "", schedule.ts) raises there inside its `begin`–`end` window. That ends the
 * tick with every task it would have run, and an interrupt's (`run`) taken before
 * (scheduler.py:35-38), and with the replications and the retention after it
 * (zettarepl/zettarepl.py:93-121); the middleware logs it and starts the loop again
 * (MW/plugins/zettarepl.py:185-189 at TS-25.10.1).
 */
export function dueTasks(appliance: Appliance, now: number): SnapshotTaskRecord[] | undefined {
  const { store } = appliance;
  const wall = wallClock(new Date(now), APPLIANCE_TIMEZONE);
  try {
    const due = store
      .read(() => listSnapshotTasks(store.db))
      .filter((t) => inZettarepl(t) && shouldRunAt(t.schedule)(wall));
    for (const schedule of replicationSchedules(appliance)) shouldRunAt(schedule)(wall);
    return due;
  } catch (err) {
    if (err instanceof ScheduleError) return undefined;
    throw err;
  }
}

export class SnapshotTaskScheduler {
  /** The clock's last reading (`Clock.now`). */
  #last: number | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(private readonly appliance: Appliance) {}

  /** One tick of the clock at `now` (ms since the epoch); ticks run one after the other. */
  tick(now: number): Promise<void> {
    const run = this.#running.then(() => this.#tick(now));
    this.#running = run.catch(() => undefined);
    return run;
  }

  /** Settles when the ticks asked for so far have run. */
  idle(): Promise<void> {
    return this.#running;
  }

  async #tick(now: number): Promise<void> {
    const last = this.#last;
    this.#last = now;
    if (last !== undefined && (now < last || Math.floor(now / MINUTE) === Math.floor(last / MINUTE))) return;
    const dueNow = dueTasks(this.appliance, now);
    // A lost tick runs nothing at all, the replications due at it included.
    if (dueNow === undefined) return;
    const due = dueNow
      .map((task) => ({ task, name: taskSnapshotName(task, now) }))
      // zettarepl.py:151-158: by name, a recursive task before a non-recursive one of the same
      // name, one without excludes before one with.
      .sort(
        (a, b) =>
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          Number(!a.task.recursive) - Number(!b.task.recursive) ||
          Number(a.task.exclude.length > 0) - Number(b.task.exclude.length > 0),
      );
    // Without a replication of its own schedule, the tick has no work when no snapshot task is due.
    if (due.length === 0 && replicationSchedules(this.appliance).length === 0) return;
    const taken = new Set<string>();
    for (const { task } of due) await runSnapshotTask(this.appliance, task, now, taken);
    // Then the replications due (zettarepl.py:113-119), before retention, which spares what they send.
    await runDueReplications(this.appliance, now, new Set(due.map((d) => d.task.id)));
    if (due.length > 0)
      await runLocalRetention(
        this.appliance,
        now,
        due.map(({ task }) => task.id),
      );
  }
}
