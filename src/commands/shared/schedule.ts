// How a lifetime (`2w`) and a schedule (a cron line) are written on the command line, for the
// verbs of periodic snapshot tasks and of replication tasks alike (docs/COMMANDS.md "Commands").
import { CRON_FIELDS, cronScheduleError, type CronSchedule } from '../../core/contract/cron.js';
import { LIFETIME_UNITS, type PoolSnapshotTaskCron } from '../../core/contract/pool-snapshottask.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';

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
