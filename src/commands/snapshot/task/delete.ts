import { call } from '../../../core/contract/client.js';
import { poolSnapshotTaskContract } from '../../../core/contract/pool-snapshottask.js';
import type { CommandContext } from '../../framework/context.js';
import { defineCommand, flag, ignoreNotFoundFlag, yesFlag, type OptionValues } from '../../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../../output/render.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../../shared/ignore-not-found.js';
import { predictedDenial } from '../../shared/predict-access.js';
import { confirmChange } from '../../shared/prompts.js';
import { findTask, retentionList, taskIdArg, taskIdOf } from './model.js';
import { warnRetention } from './retention.js';

const deleteOptions = {
  fixateRemovalDate: flag("the task's snapshots keep the date they would have been removed on (fixate_removal_date)"),
  yes: yesFlag(),
  dryRun: flag('show the task and the snapshots it leaves; delete nothing'),
  ignoreNotFound: ignoreNotFoundFlag(),
};

/** `stor snapshot task delete --json` */
export interface SnapshotTaskDeleted {
  id: number;
  dataset: string;
  dry_run: boolean;
  deleted: boolean;
  /** DATASET@NAME of each snapshot the task leaves to no task's retention (delete_will_change_retention_for); they stay. */
  retention_dropped: string[];
}

/**
 * `stor snapshot task delete ID`: shows the snapshots the task leaves to no task's retention, asks
 * (or --yes), then deletes the task; its snapshots stay.
 */
export async function snapshotTaskDelete(
  ctx: CommandContext,
  raw: string,
  options: OptionValues<typeof deleteOptions>,
): Promise<CommandResult<SnapshotTaskDeleted | NothingDeleted>> {
  const id = taskIdOf(raw);
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(options.ignoreNotFound, () => findTask(t, id));
  if ('missing' in lookup) return nothingDeleted(ctx, raw, lookup.missing);
  const task = lookup.found;
  const dropped = retentionList(await call(t, 'pool.snapshottask.delete_will_change_retention_for', [id]));
  const data: SnapshotTaskDeleted = {
    id,
    dataset: task.dataset,
    dry_run: options.dryRun,
    deleted: !options.dryRun,
    retention_dropped: dropped,
  };
  warnRetention(ctx, `Deleting snapshot task ${id}`, dropped, options.fixateRemovalDate);
  if (options.dryRun) {
    const denied = await predictedDenial(t, poolSnapshotTaskContract['pool.snapshottask.delete'].access);
    if (denied) throw denied;
    ctx.note('stor: dry run: nothing was deleted');
    return deletedResult(data);
  }
  await confirmChange(
    ctx,
    `Delete snapshot task ${id} (${task.dataset})? Its snapshots stay.`,
    options.yes,
    `preview with \`stor snapshot task delete ${id} --dry-run\``,
  );
  await call(t, 'pool.snapshottask.delete', [id, { fixate_removal_date: options.fixateRemovalDate }]);
  return deletedResult(data);
}

function deletedResult(data: SnapshotTaskDeleted): CommandResult<SnapshotTaskDeleted> {
  return recordResult(data, {
    fields: [
      ['task', data.id],
      ['dataset', data.dataset],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      [data.dry_run ? 'would delete' : 'deleted', true],
    ],
    ...(data.retention_dropped.length > 0
      ? { list: { label: 'no longer removed by any task', items: data.retention_dropped } }
      : {}),
  });
}

export const snapshotTaskDeleteCommand = defineCommand({
  summary: 'delete a periodic snapshot task (shows the snapshots it leaves, asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['pool.snapshottask.delete', 'pool.snapshottask.query', 'pool.snapshottask.delete_will_change_retention_for'],
  asks: true,
  args: taskIdArg,
  options: deleteOptions,
  examples: [
    'stor snapshot task delete 1 --dry-run',
    'stor snapshot task delete 1 --fixate-removal-date --yes',
    'stor snapshot task delete 1 --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { id }, opts) => snapshotTaskDelete(ctx, id, opts),
});
