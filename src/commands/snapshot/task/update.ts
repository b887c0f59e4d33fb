import { validateParams } from '../../../core/appliance/params.js';
import { call } from '../../../core/contract/client.js';
import { poolSnapshotTaskContract } from '../../../core/contract/pool-snapshottask.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import type { CommandContext } from '../../framework/context.js';
import { defineCommand, flag, yesFlag, type OptionValues } from '../../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../../output/render.js';
import { predictedDenial } from '../../shared/predict-access.js';
import { confirmChange } from '../../shared/prompts.js';
import { findTask, retentionList, taskIdArg, taskIdOf, type SnapshotTask } from './model.js';
import { taskFieldsOf, taskOptions } from './options.js';
import { taskRecord } from './record.js';
import { warnRetention } from './retention.js';

const options = {
  ...taskOptions,
  fixateRemovalDate: flag(
    'the snapshots the change leaves to no task keep the date they would have been removed on (fixate_removal_date)',
  ),
  yes: yesFlag(),
};

/** `stor snapshot task update --json` */
export interface SnapshotTaskUpdated {
  id: number;
  dry_run: boolean;
  /** DATASET@NAME of each snapshot the change leaves to no task's retention (update_will_change_retention_for). */
  retention_dropped: string[];
  /** The task as stored after the change; with --dry-run, as it would be. */
  task: SnapshotTask;
}

/**
 * `stor snapshot task update ID`: sends the fields given. A change that would leave snapshots to no
 * task's retention (pool.snapshottask.update_will_change_retention_for) lists them and asks first.
 */
export async function snapshotTaskUpdate(
  ctx: CommandContext,
  raw: string,
  { dryRun, yes, fixateRemovalDate, ...settings }: OptionValues<typeof options>,
): Promise<CommandResult<SnapshotTaskUpdated>> {
  const id = taskIdOf(raw);
  if (Object.keys(taskFieldsOf(settings)).length === 0)
    throw new StorError(E.NOTHING_TO_UPDATE, `nothing to change on snapshot task ${id}`, {
      hint: '`stor snapshot task update --help` lists what can be changed',
    });
  const t = await ctx.transport();
  const old = await findTask(t, id);
  const fields = taskFieldsOf(settings, old.schedule);
  const dropped = retentionList(await call(t, 'pool.snapshottask.update_will_change_retention_for', [id, fields]));
  const data: SnapshotTaskUpdated = { id, dry_run: dryRun, retention_dropped: dropped, task: { ...old, ...fields } };
  if (dryRun) {
    const method = poolSnapshotTaskContract['pool.snapshottask.update'];
    const denied = await predictedDenial(t, method.access);
    if (denied) throw denied;
    validateParams(method.params, [id, fields]);
    warnRetention(ctx, `Updating snapshot task ${id}`, dropped, fixateRemovalDate);
    ctx.note('stor: dry run: nothing was changed');
    return updatedResult(data);
  }
  if (dropped.length > 0) {
    warnRetention(ctx, `Updating snapshot task ${id}`, dropped, fixateRemovalDate);
    await confirmChange(
      ctx,
      `Update snapshot task ${id} (${old.dataset})?`,
      yes,
      `preview with \`stor snapshot task update ${id} … --dry-run\``,
    );
  }
  const params = fixateRemovalDate ? { ...fields, fixate_removal_date: true } : fields;
  data.task = (await call(t, 'pool.snapshottask.update', [id, params])) as SnapshotTask;
  ctx.note(`stor: updated snapshot task ${id}`);
  return updatedResult(data);
}

function updatedResult(data: SnapshotTaskUpdated): CommandResult<SnapshotTaskUpdated> {
  return recordResult(data, {
    fields: [...taskRecord(data.task), ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)]],
    ...(data.retention_dropped.length > 0
      ? { list: { label: 'no longer removed by any task', items: data.retention_dropped } }
      : {}),
  });
}

export const snapshotTaskUpdateCommand = defineCommand({
  summary: "change a periodic snapshot task's schedule, lifetime or naming (asks when snapshots would outlive it)",
  effect: 'change',
  calls: ['pool.snapshottask.update', 'pool.snapshottask.query', 'pool.snapshottask.update_will_change_retention_for'],
  asks: true,
  args: taskIdArg,
  options,
  examples: [
    'stor snapshot task update 1 --lifetime 30d',
    "stor snapshot task update 1 --schedule '0 */4 * * *' --dry-run",
    "stor snapshot task update 1 --naming-schema 'hourly-%Y-%m-%d_%H-%M' --fixate-removal-date --yes",
  ],
  fanOut: 'change',
  run: (ctx, { id }, opts) => snapshotTaskUpdate(ctx, id, opts),
});
