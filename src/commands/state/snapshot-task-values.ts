/**
 * A snapshot task's values between the file's terms (`lifetime: 2w`, `schedule: "0 * * * *"`) and
 * the appliance's (`lifetime_value`/`lifetime_unit`, the schedule object), and what a shorter
 * lifetime would let retention destroy (docs/STATE.md "Snapshot tasks").
 */
import { storedTime, type CronSchedule } from '../../core/contract/cron.js';
import {
  DEFAULT_SNAPSHOT_TASK_SCHEDULE,
  LIFETIME_UNITS,
  type PoolSnapshotTaskCron,
} from '../../core/contract/pool-snapshottask.js';
import { tryParseSnapshotName } from '../../core/contract/snapshot-naming-schema.js';
import { LIFETIME_TEXT, type StateObject } from '../../core/state/index.js';
import { lifetimeMs } from '../../core/lifetime.js';
import { wallClock } from '../../core/wall-clock.js';

type Want = StateObject<'snapshot_tasks'>;
export type LifetimeUnit = (typeof LIFETIME_UNITS)[number];
export interface Lifetime {
  value: number;
  unit: LifetimeUnit;
}

const LETTER: Record<LifetimeUnit, string> = { HOUR: 'h', DAY: 'd', WEEK: 'w', MONTH: 'm', YEAR: 'y' };

/** The file's lifetime in the appliance's terms. */
export function lifetimeOf(lifetime: NonNullable<Want['lifetime']>): Lifetime {
  if (typeof lifetime !== 'string') return lifetime;
  const [, count, letter] = LIFETIME_TEXT.exec(lifetime)!;
  const unit = LIFETIME_UNITS.find((u) => LETTER[u] === letter!.toLowerCase())!;
  return { value: Number(count), unit };
}

/** A lifetime as export writes it and the plan shows it: `2w`. */
export const lifetimeText = (l: Lifetime): string => `${l.value}${LETTER[l.unit]}`;

/** The file's schedule laid over `base` (the live task's, or a fresh task's), begin and end as the appliance stores them. */
export function scheduleOf(
  schedule: NonNullable<Want['schedule']>,
  base: PoolSnapshotTaskCron = DEFAULT_SNAPSHOT_TASK_SCHEDULE,
): PoolSnapshotTaskCron {
  if (typeof schedule === 'string') {
    const [minute, hour, dom, month, dow] = schedule.trim().split(/\s+/) as [string, string, string, string, string];
    return { ...base, minute, hour, dom, month, dow };
  }
  const out = { ...base };
  for (const [k, v] of Object.entries(schedule)) if (v !== undefined) out[k as keyof PoolSnapshotTaskCron] = v;
  // `storedTime` of an unparsable time would be NaN:NaN; the appliance's own refusal says better (refuse).
  for (const k of ['begin', 'end'] as const) if (/^\s*\d+\s*:\s*\d+\s*$/.test(out[k])) out[k] = storedTime(out[k]);
  return out;
}

const FIVE: (keyof CronSchedule)[] = ['minute', 'hour', 'dom', 'month', 'dow'];
const DEFAULT_WINDOW = (s: PoolSnapshotTaskCron) =>
  s.begin === DEFAULT_SNAPSHOT_TASK_SCHEDULE.begin && s.end === DEFAULT_SNAPSHOT_TASK_SCHEDULE.end;

/** A schedule as export writes it: five cron fields, or the object when it has a window of its own. */
export const scheduleText = (s: PoolSnapshotTaskCron): string | PoolSnapshotTaskCron =>
  DEFAULT_WINDOW(s) ? FIVE.map((f) => s[f]).join(' ') : { ...s };

/** A schedule as the plan shows it: `0 * * * *`, and its window when it has one. */
export const scheduleShown = (s: PoolSnapshotTaskCron): string =>
  `${FIVE.map((f) => s[f]).join(' ')}${DEFAULT_WINDOW(s) ? '' : ` ${s.begin}-${s.end}`}`;

/** An instant's wall clock in `tz`, as UTC milliseconds (a name's time is a wall clock too). */
const wallClockMs = (at: number, tz: string): number => wallClock(new Date(at), tz).getTime();

/** A snapshot name's time as the appliance's wall clock, or null when the schema does not read it. */
function takenAt(name: string, schema: string, tz: string): number | null {
  if (schema.includes('%s')) {
    const m = new RegExp(`^${schema.replace(/[\\.^$*+?(){}[\]|-]/g, '\\$&').replace('%s', '([0-9]+)')}$`).exec(name);
    return m ? wallClockMs(Number(m[1]) * 1000, tz) : null;
  }
  const p = tryParseSnapshotName(name, schema)?.time;
  return p ? Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) : null;
}

/**
 * Of a task's snapshots (`DATASET@NAME`, what delete_will_change_retention_for lists as the task's),
 * those the new lifetime lets retention destroy at its next run and the old one kept: older than
 * the new lifetime, judged at the appliance's clock (`now`, in its zone `tz`), the newest of each
 * dataset kept as zettarepl keeps it. Not judged: another task's longer lifetime over the same
 * snapshot, holds, and the hour a clock repeats (docs/STATE.md "Snapshot tasks").
 */
export function shortenedAway(
  snapshots: readonly string[],
  schema: string,
  from: Lifetime,
  to: Lifetime,
  now: number,
  tz: string,
): string[] {
  if (lifetimeMs(to) >= lifetimeMs(from)) return [];
  const wall = wallClockMs(now, tz);
  const newest = new Map<string, number>();
  const dated = snapshots.flatMap((id) => {
    const at = id.indexOf('@');
    const time = takenAt(id.slice(at + 1), schema, tz);
    if (time === null) return [];
    const dataset = id.slice(0, at);
    newest.set(dataset, Math.max(newest.get(dataset) ?? -Infinity, time));
    return [{ id, dataset, time }];
  });
  return dated
    .filter((s) => s.time !== newest.get(s.dataset))
    .filter((s) => s.time <= wall - lifetimeMs(to) && s.time > wall - lifetimeMs(from))
    .map((s) => s.id)
    .sort();
}
