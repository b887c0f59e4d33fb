import { DIRECTIONS, RETENTION_POLICIES, TRANSPORTS, type ReplicationUpdate } from '../../core/contract/replication.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { choice, flag, list, toggle, value, type OptionValues } from '../framework/declare.js';
import { parseCron, parseLifetime } from '../shared/schedule.js';

const idOf = (what: string) => (raw: string) => {
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1)
    throw new StorError(E.USAGE, `${what} is a whole number from 1, not ${JSON.stringify(raw)}`);
  return Number(raw);
};

/** A replication task's settings, as `replication create` and `update` take them. */
export const replicationOptions = {
  source: list('<dataset,…>', 'the datasets to copy from', { complete: 'dataset' }),
  target: value('<dataset>', 'the dataset to copy into', { complete: 'dataset' }),
  direction: choice(DIRECTIONS, '<PUSH|PULL>', 'PUSH sends from this appliance (default), PULL fetches to it'),
  transport: choice(TRANSPORTS, '<LOCAL|SSH|SSH+NETCAT>', 'LOCAL copies within this appliance; SSH to another'),
  sshCredentials: value('<id>', 'the SSH keychain credential (with --transport SSH)', {
    parse: idOf('an SSH credential id'),
  }),
  task: list('<id,…>', 'the periodic snapshot tasks whose snapshots it copies (`stor snapshot task list`)', {
    complete: 'snapshot-task',
  }),
  namingSchema: list('<schema,…>', 'the names of the snapshots it copies (PULL), strftime-style'),
  alsoIncludeNamingSchema: list('<schema,…>', "also copies the snapshots named so (PUSH), beside its tasks' ones"),
  recursive: toggle('also copy every child dataset', 'only the datasets themselves'),
  exclude: list('<dataset,…>', 'with --recursive, children not to copy', { complete: 'dataset' }),
  retention: choice(
    RETENTION_POLICIES,
    '<SOURCE|CUSTOM|NONE>',
    "what the target keeps: what the source keeps (SOURCE, default), --lifetime's (CUSTOM), everything (NONE)",
  ),
  lifetime: value('<n{h,d,w,m,y}>', 'with CUSTOM retention, how long the target keeps each snapshot (implies CUSTOM)', {
    parse: parseLifetime,
  }),
  auto: toggle(
    'runs on its own: after its snapshot tasks, or on --schedule (default when either is given)',
    'runs only when told (`stor replication run`)',
  ),
  schedule: value('<cron>', 'when it runs, a cron line (instead of after its snapshot tasks)', { parse: parseCron }),
  allowFromScratch: toggle(
    'when source and target share no snapshot, destroy the target and copy it all again',
    'refuse to start over when source and target share no snapshot (default)',
  ),
  readonly: choice(['SET', 'REQUIRE', 'IGNORE'], '<SET|REQUIRE|IGNORE>', 'the target made read-only (SET, default)'),
  disabled: toggle('not run on its own (nor after its snapshot tasks)', 'run on its own'),
  dryRun: flag('show the task the appliance would be sent; change nothing'),
};

type Values = Omit<OptionValues<typeof replicationOptions>, 'dryRun'>;

/** The task fields the options give (undefined: not given); `--lifetime` alone means CUSTOM retention. */
export function replicationFieldsOf(o: Values): ReplicationUpdate {
  const fields: ReplicationUpdate = {
    direction: o.direction,
    transport: o.transport,
    ssh_credentials: o.sshCredentials,
    source_datasets: o.source,
    target_dataset: o.target,
    recursive: o.recursive,
    exclude: o.exclude,
    periodic_snapshot_tasks: o.task?.map(idOf('a snapshot task id')),
    naming_schema: o.namingSchema,
    also_include_naming_schema: o.alsoIncludeNamingSchema,
    auto: o.auto,
    schedule: o.schedule && { ...o.schedule, begin: '00:00', end: '23:59' },
    allow_from_scratch: o.allowFromScratch,
    readonly: o.readonly,
    retention_policy: o.retention ?? (o.lifetime ? 'CUSTOM' : undefined),
    ...(o.lifetime ?? {}),
    enabled: o.disabled === undefined ? undefined : !o.disabled,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ReplicationUpdate;
}
