import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { boundTaskIds, type Replication, retentionOf, routeOf, runStateOf, whenOf } from './model.js';

/** `stor replication list`: every replication task; `--json` gives the query rows. */
export async function replicationList(ctx: CommandContext): Promise<CommandResult<Replication[]>> {
  const t = await ctx.transport();
  const data = (await queryItems(t, 'replication.query', [
    'id',
    'name',
    'direction',
    'transport',
    'source_datasets',
    'target_dataset',
    'periodic_snapshot_tasks',
    'auto',
    'retention_policy',
    'enabled',
    'state',
  ])) as Replication[];
  return tableResult(data, {
    columns: [
      { header: 'id', key: true },
      { header: 'name', key: true },
      'direction',
      'transport',
      { header: 'source → target', overflow: 'wrap' },
      'tasks',
      'when',
      'retention',
      'enabled',
      { header: 'state', overflow: 'wrap' },
    ],
    rows: data.map((r) => [
      r.id,
      r.name,
      r.direction,
      r.transport,
      routeOf(r),
      boundTaskIds(r).join(','),
      whenOf(r),
      retentionOf(r),
      r.enabled,
      runStateOf(r),
    ]),
    empty: 'No replication tasks.',
  });
}

export const replicationListCommand = defineCommand({
  summary: 'list replication tasks: what goes where, when, what the target keeps, and the last run',
  effect: 'read',
  calls: ['replication.query'],
  fanOut: 'read',
  examples: ['stor replication list', 'stor replication list --json'],
  run: (ctx) => replicationList(ctx),
});
