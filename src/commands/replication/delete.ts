import { call } from '../../core/contract/client.js';
import { replicationContract } from '../../core/contract/replication.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, ignoreNotFoundFlag, yesFlag, type OptionValues } from '../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../output/render.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { predictedDenial } from '../shared/predict-access.js';
import { confirmChange } from '../shared/prompts.js';
import { findReplication, replicationArg, routeOf } from './model.js';

const deleteOptions = {
  yes: yesFlag(),
  dryRun: flag('show the task that would go; delete nothing'),
  ignoreNotFound: ignoreNotFoundFlag(),
};

/** `stor replication delete --json` */
export interface ReplicationDeleted {
  id: number;
  name: string;
  dry_run: boolean;
  deleted: boolean;
}

/**
 * `stor replication delete ID|NAME`: asks (or --yes), then deletes the task. Its snapshots stay on
 * both sides, and its periodic snapshot tasks stay (MW/plugins/replication.py:279-294 deletes the row).
 */
export async function replicationDelete(
  ctx: CommandContext,
  ref: string,
  options: OptionValues<typeof deleteOptions>,
): Promise<CommandResult<ReplicationDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(options.ignoreNotFound, () => findReplication(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const task = lookup.found;
  const data = { id: task.id, name: task.name, dry_run: options.dryRun, deleted: !options.dryRun };
  if (options.dryRun) {
    const denied = await predictedDenial(t, replicationContract['replication.delete'].access);
    if (denied) throw denied;
    ctx.note('stor: dry run: nothing was deleted');
    return deletedResult(data);
  }
  await confirmChange(
    ctx,
    `Delete replication task ${task.id} (${task.name}: ${routeOf(task)})? The snapshots on both sides stay.`,
    options.yes,
    `preview with \`stor replication delete ${ref} --dry-run\``,
  );
  await call(t, 'replication.delete', [task.id]);
  return deletedResult(data);
}

function deletedResult(data: ReplicationDeleted): CommandResult<ReplicationDeleted> {
  return recordResult(data, {
    fields: [
      ['task', data.id],
      ['name', data.name],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      [data.dry_run ? 'would delete' : 'deleted', true],
    ],
  });
}

export const replicationDeleteCommand = defineCommand({
  summary: 'delete a replication task (its snapshots stay; asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['replication.delete', 'replication.query'],
  asks: true,
  args: replicationArg,
  options: deleteOptions,
  examples: [
    'stor replication delete backup --dry-run',
    'stor replication delete 1 --yes',
    'stor replication delete backup --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { task }, opts) => replicationDelete(ctx, task, opts),
});
