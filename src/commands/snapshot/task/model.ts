import { queryItems } from '../../../core/contract/client.js';
import { CRON_FIELDS, cronScheduleError, type CronSchedule } from '../../../core/contract/cron.js';
import {
  LIFETIME_UNITS,
  type PoolSnapshotTaskCron,
  type PoolSnapshotTaskEntry,
} from '../../../core/contract/pool-snapshottask.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import type { Transport } from '../../../core/transport/transport.js';
import { arg } from '../../framework/declare.js';

type LifetimeUnit = (typeof LIFETIME_UNITS)[number];

/** The letter a lifetime is written with on the command line, per unit (docs/COMMANDS.md "Commands"). */
const UNIT_LETTER: Record<LifetimeUnit, string> = { HOUR: 'h', DAY: 'd', WEEK: 'w', MONTH: 'm', YEAR: 'y' };

/** `2w`, `30d`, `12h`, `6m`, `1y` (or `3 months`): lifetime_value and lifetime_unit as PoolSnapshotTaskCreate takes them. */
export function parseLifetime(raw: string): { lifetime_value: number; lifetime_unit: LifetimeUnit } {
  const m = /^\s*(\d+)\s*([a-z]+)\s*$/i.exec(raw);
  const word = m?.[2]!.toLowerCase() ?? '';
  const unit = LIFETIME_UNITS.find(
    (u) => word === UNIT_LETTER[u] || word === u.toLowerCase() || word === `${u.toLowerCase()}s`,
  );
  if (!m || !unit || !Number.isSafeInteger(Number(m[1])))
    throw new StorError(
      E.USAGE,
      `not a lifetime: ${JSON.stringify(raw)}; write a number and a unit: 12h, 30d, 2w, 6m or 1y`,
    );
  const value = Number(m[1]);
  // The appliance takes any int (MW/api/v25_10_1/pool_snapshottask.py:34), but a lifetime of 0 has
  // each snapshot expired as it is taken, for the next retention run to destroy: a slip, refused here.
  if (value === 0)
    throw new StorError(E.USAGE, `a lifetime of ${m[1]} keeps no snapshot`, { hint: 'e.g. --lifetime 2w' });
  return { lifetime_value: value, lifetime_unit: unit };
}

/** A task's lifetime as the command line writes it: `2w`. */
export const lifetimeText = (value: number, unit: LifetimeUnit): string => `${value}${UNIT_LETTER[unit]}`;

/**
 * A cron line `minute hour day-of-month month day-of-week` as the schedule's fields, judged as
 * the appliance's CronModel judges it (contract/cron.ts, croniter's own checks), so a line the
 * appliance would refuse is a usage error before any call.
 */
export function parseCron(line: string): CronSchedule {
  const words = line.trim().split(/\s+/).filter(Boolean);
  const hint = "five fields: minute hour day-of-month month day-of-week, e.g. '0 * * * *' (hourly)";
  if (words.length !== CRON_FIELDS.length)
    throw new StorError(E.USAGE, `not a schedule: ${JSON.stringify(line)} has ${words.length} fields, not 5`, {
      hint,
    });
  const schedule = Object.fromEntries(CRON_FIELDS.map((f, i) => [f, words[i]!])) as CronSchedule;
  const error = cronScheduleError(schedule);
  if (error !== null) throw new StorError(E.USAGE, `not a schedule: ${JSON.stringify(line)}: ${error}`, { hint });
  return schedule;
}

/** The schedule as a cron line, and its begin–end window when it is not the whole day. */
export function cronLine(s: PoolSnapshotTaskCron): string {
  const line = CRON_FIELDS.map((f) => s[f]).join(' ');
  return s.begin === '00:00' && s.end === '23:59' ? line : `${line} (${s.begin}-${s.end})`;
}

/** A periodic snapshot task as pool.snapshottask.query answers it (either release's order). */
export type SnapshotTask = PoolSnapshotTaskEntry;

/** The task's last run as zettarepl reports it (`state.state`: PENDING, RUNNING, FINISHED, ERROR). */
export function stateOf(task: Pick<SnapshotTask, 'state'>): string {
  const s = task.state as { state?: unknown; error?: unknown } | null | undefined;
  const word = typeof s?.state === 'string' ? s.state : '';
  return typeof s?.error === 'string' && s.error !== '' ? `${word}: ${s.error}` : word;
}

/** A task id: a whole number from 1. */
export function taskIdOf(raw: string): number {
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1)
    throw new StorError(E.USAGE, `a snapshot task id is a whole number from 1, not ${JSON.stringify(raw)}`, {
      hint: '`stor snapshot task list` shows the ids',
    });
  return Number(raw);
}

export const taskIdArg = { id: arg.required('the task id (`stor snapshot task list`)', 'snapshot-task') };

/**
 * Task `id`, read before any change: a missing one is NOT_FOUND. 25.10.1's delete of an unknown id
 * answers true without looking (MW/plugins/snapshot.py:247-267), so it is never learnt from the change.
 */
export async function findTask(t: Pick<Transport, 'call'>, id: number): Promise<SnapshotTask> {
  const [found] = await queryItems(t, 'pool.snapshottask.query', ['id', 'dataset'], [['id', '=', id]]);
  if (!found)
    throw new StorError(E.NOT_FOUND, `no snapshot task ${id}`, { hint: '`stor snapshot task list` shows them' });
  return found as SnapshotTask;
}

/** What pool.snapshottask.*_will_change_retention_for answers, as one list of DATASET@NAME. */
export const retentionList = (byDataset: Record<string, string[]>): string[] =>
  Object.entries(byDataset).flatMap(([dataset, names]) => names.map((n) => `${dataset}@${n}`));
