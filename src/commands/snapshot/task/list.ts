import { queryItems } from '../../../core/contract/client.js';
import type { CommandContext } from '../../framework/context.js';
import { arg, defineCommand } from '../../framework/declare.js';
import { type CommandResult, tableResult } from '../../output/render.js';
import { datasetId } from '../../dataset/model.js';
import { cronLine, lifetimeText } from '../../shared/schedule.js';
import { stateOf, type SnapshotTask } from './model.js';

/** `stor snapshot task list [DATASET]`: every periodic snapshot task, or one dataset's; `--json` gives the query rows. */
export async function snapshotTaskList(
  ctx: CommandContext,
  ref: string | undefined,
): Promise<CommandResult<SnapshotTask[]>> {
  const t = await ctx.transport();
  const dataset = ref === undefined ? undefined : datasetId(ref);
  const data = (await queryItems(
    t,
    'pool.snapshottask.query',
    ['id', 'dataset', 'recursive', 'naming_schema', 'lifetime_value', 'lifetime_unit', 'schedule', 'enabled'],
    dataset === undefined ? [] : [['dataset', '=', dataset]],
  )) as SnapshotTask[];
  return tableResult(data, {
    columns: [
      { header: 'id', key: true },
      { header: 'dataset', key: true },
      'recursive',
      'naming schema',
      'lifetime',
      'schedule',
      'enabled',
      { header: 'state', overflow: 'wrap' },
    ],
    rows: data.map((s) => [
      s.id,
      s.dataset,
      s.recursive,
      s.naming_schema,
      lifetimeText(s.lifetime_value, s.lifetime_unit),
      cronLine(s.schedule),
      s.enabled,
      stateOf(s),
    ]),
    empty: dataset === undefined ? 'No periodic snapshot tasks.' : `No periodic snapshot tasks of ${dataset}.`,
  });
}

export const snapshotTaskListCommand = defineCommand({
  summary: 'list periodic snapshot tasks (of one dataset, or all): schedule, lifetime, last run',
  effect: 'read',
  calls: ['pool.snapshottask.query'],
  fanOut: 'read',
  args: { dataset: arg.optional('only the tasks of this dataset (full name or mountpoint)', 'dataset') },
  examples: ['stor snapshot task list', 'stor snapshot task list tank/a', 'stor snapshot task list --json'],
  run: (ctx, { dataset }) => snapshotTaskList(ctx, dataset),
});
