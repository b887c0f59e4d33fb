import { validateParams } from '../../../core/appliance/params.js';
import { call } from '../../../core/contract/client.js';
import { poolSnapshotTaskContract, type PoolSnapshotTaskCreate } from '../../../core/contract/pool-snapshottask.js';
import type { CommandContext } from '../../framework/context.js';
import { arg, defineCommand, type OptionValues } from '../../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../../output/render.js';
import { predictedDenial } from '../../shared/predict-access.js';
import { datasetId, findDataset } from '../../dataset/model.js';
import type { SnapshotTask } from './model.js';
import { taskFieldsOf, taskOptions } from './options.js';
import { taskRecord } from './record.js';

/** `stor snapshot task create --json` */
export interface SnapshotTaskCreated {
  dry_run: boolean;
  /** The task as stored; with --dry-run, the fields it would be sent with the appliance's defaults filled in. */
  task: SnapshotTask | PoolSnapshotTaskCreate;
}

/**
 * `stor snapshot task create DATASET`: pool.snapshottask.create with the options' fields (the
 * appliance's defaults for the rest). A dry run reads only: the dataset, the caller's roles, and
 * the create model's own checks run here as the dispatcher runs them before the method.
 */
export async function snapshotTaskCreate(
  ctx: CommandContext,
  ref: string,
  { dryRun, ...settings }: OptionValues<typeof taskOptions>,
): Promise<CommandResult<SnapshotTaskCreated>> {
  const dataset = datasetId(ref);
  const fields = { dataset, ...taskFieldsOf(settings) };
  const t = await ctx.transport();
  if (dryRun) {
    await findDataset(t, dataset);
    const denied = await predictedDenial(t, poolSnapshotTaskContract['pool.snapshottask.create'].access);
    if (denied) throw denied;
    const [task] = validateParams(poolSnapshotTaskContract['pool.snapshottask.create'].params, [fields]);
    ctx.note('stor: dry run: no task was created');
    return createdResult({ dry_run: true, task });
  }
  const task = (await call(t, 'pool.snapshottask.create', [fields])) as SnapshotTask;
  ctx.note(`stor: created snapshot task ${task.id}; run it now with: stor snapshot task run ${task.id}`);
  return createdResult({ dry_run: false, task });
}

function createdResult(data: SnapshotTaskCreated): CommandResult<SnapshotTaskCreated> {
  return recordResult(data, {
    fields: [...taskRecord(data.task), ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)]],
  });
}

export const snapshotTaskCreateCommand = defineCommand({
  summary: 'take snapshots of a dataset on a schedule, each kept for a lifetime (pool.snapshottask.create)',
  effect: 'change',
  calls: ['pool.snapshottask.create', 'pool.dataset.query'],
  args: { dataset: arg.required('the dataset to snapshot (full name or mountpoint)', 'dataset') },
  options: taskOptions,
  examples: [
    "stor snapshot task create tank/a --lifetime 2w --schedule '0 * * * *'",
    "stor snapshot task create tank --recursive --exclude tank/scratch --naming-schema 'nightly-%Y-%m-%d_%H-%M' --lifetime 30d --schedule '0 3 * * *'",
    "stor snapshot task create tank/a --schedule '*/15 * * * mon-fri' --begin 08:00 --end 18:00 --dry-run",
  ],
  fanOut: 'change',
  run: (ctx, { dataset }, opts) => snapshotTaskCreate(ctx, dataset, opts),
});
