import { validateParams } from '../../core/appliance/params.js';
import { call } from '../../core/contract/client.js';
import { replicationContract, type ReplicationCreate } from '../../core/contract/replication.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, type OptionValues } from '../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../output/render.js';
import { predictedDenial } from '../shared/predict-access.js';
import type { Replication } from './model.js';
import { replicationFieldsOf, replicationOptions } from './options.js';
import { replicationRecord } from './record.js';

/** `stor replication create --json` */
export interface ReplicationCreated {
  dry_run: boolean;
  /** The task as stored; with --dry-run, the fields it would be sent with the appliance's defaults filled in. */
  task: Replication | ReplicationCreate;
}

/**
 * `stor replication create NAME`: replication.create with the options' fields. stor fills in what
 * the appliance requires without a default (MW/api/v25_10_1/replication.py:41-176: direction,
 * recursive, auto, retention_policy): PUSH, not recursive, automatic when it has snapshot tasks or
 * a schedule, SOURCE retention. A dry run reads only, the create model's checks run here.
 */
export async function replicationCreate(
  ctx: CommandContext,
  name: string,
  { dryRun, ...settings }: OptionValues<typeof replicationOptions>,
): Promise<CommandResult<ReplicationCreated>> {
  const given = replicationFieldsOf(settings);
  for (const [option, field] of [
    ['--source', 'source_datasets'],
    ['--target', 'target_dataset'],
    ['--transport', 'transport'],
  ] as const)
    if (given[field] === undefined)
      throw new StorError(E.USAGE, `replication create needs ${option}`, {
        hint: 'e.g. stor replication create backup --source tank/a --target tank/backup --transport LOCAL --task 1',
      });
  const fields = {
    name,
    direction: 'PUSH',
    recursive: false,
    auto: (given.periodic_snapshot_tasks?.length ?? 0) > 0 || given.schedule !== undefined,
    retention_policy: 'SOURCE',
    ...given,
  };
  const t = await ctx.transport();
  const method = replicationContract['replication.create'];
  if (dryRun) {
    const denied = await predictedDenial(t, method.access);
    if (denied) throw denied;
    const [task] = validateParams(method.params, [fields]);
    ctx.note('stor: dry run: no task was created');
    return createdResult({ dry_run: true, task });
  }
  const task = (await call(t, 'replication.create', [fields as ReplicationCreate])) as Replication;
  ctx.note(`stor: created replication task ${task.id}; run it now with: stor replication run ${task.id}`);
  return createdResult({ dry_run: false, task });
}

function createdResult(data: ReplicationCreated): CommandResult<ReplicationCreated> {
  return recordResult(data, {
    fields: [...replicationRecord(data.task), ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)]],
  });
}

export const replicationCreateCommand = defineCommand({
  summary: 'copy datasets to another dataset (here or over SSH), after their snapshot tasks or on a schedule',
  effect: 'change',
  calls: ['replication.create'],
  args: { name: arg.required('a name for the task') },
  options: replicationOptions,
  examples: [
    'stor replication create backup --source tank/a --target tank/backup --transport LOCAL --task 1',
    'stor replication create offsite --source tank/a --target pool2/a --transport SSH --ssh-credentials 1 --task 1 --retention CUSTOM --lifetime 6m',
    "stor replication create nightly --source tank/a --target tank/b --transport LOCAL --also-include-naming-schema 'manual-%Y-%m-%d_%H-%M' --schedule '0 3 * * *' --dry-run",
  ],
  fanOut: 'change',
  run: (ctx, { name }, opts) => replicationCreate(ctx, name, opts),
});
