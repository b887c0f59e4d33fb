import type { CronSchedule } from '../../../core/contract/cron.js';
import type { PoolSnapshotTaskChanges } from '../../../core/contract/pool-snapshottask.js';
import { flag, list, toggle, value, type OptionValues } from '../../framework/declare.js';
import { parseCron, parseLifetime } from '../../shared/schedule.js';

/** A task's settings, as `snapshot task create` and `update` take them. */
export const taskOptions = {
  namingSchema: value(
    '<schema>',
    "the snapshots' names, strftime-style: must hold %Y %m %d %H %M (default auto-%Y-%m-%d_%H-%M)",
  ),
  lifetime: value('<n{h,d,w,m,y}>', 'how long each snapshot is kept: 12h, 30d, 2w (default), 6m, 1y', {
    parse: parseLifetime,
  }),
  schedule: value(
    '<cron>',
    "when it runs, a cron line: minute hour day-of-month month day-of-week (default '00 * * * *')",
    {
      parse: parseCron,
    },
  ),
  begin: value('<HH:MM>', 'runs only from this time of day (default 00:00)'),
  end: value('<HH:MM>', 'runs only until this time of day (default 23:59)'),
  recursive: toggle('also snapshot every child dataset', 'only the dataset itself'),
  exclude: list('<dataset,…>', 'with --recursive, children not to snapshot', { complete: 'dataset' }),
  allowEmpty: toggle(
    'take a snapshot even when nothing changed since the last one (default)',
    'skip a snapshot when nothing changed since the last one',
  ),
  disabled: toggle('not run on its schedule (nor by `snapshot task run`)', 'run on its schedule'),
  dryRun: flag('show the task the appliance would be sent, and what its retention would drop; change nothing'),
};

type TaskOptionValues = Omit<OptionValues<typeof taskOptions>, 'dryRun'>;

/** The task fields the options give (undefined: not given); the schedule's window is laid over `schedule`. */
export function taskFieldsOf(
  o: TaskOptionValues,
  schedule?: PoolSnapshotTaskChanges['schedule'],
): PoolSnapshotTaskChanges {
  const cron: Partial<CronSchedule> | undefined = o.schedule;
  const window = {
    ...(o.begin !== undefined ? { begin: o.begin } : {}),
    ...(o.end !== undefined ? { end: o.end } : {}),
  };
  const fields: PoolSnapshotTaskChanges = {
    naming_schema: o.namingSchema,
    ...(o.lifetime ?? {}),
    recursive: o.recursive,
    exclude: o.exclude,
    allow_empty: o.allowEmpty,
    enabled: o.disabled === undefined ? undefined : !o.disabled,
    schedule:
      cron === undefined && Object.keys(window).length === 0
        ? undefined
        : ({ ...schedule, ...cron, ...window } as PoolSnapshotTaskChanges['schedule']),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as PoolSnapshotTaskChanges;
}
