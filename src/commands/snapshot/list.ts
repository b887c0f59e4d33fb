import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag } from '../framework/declare.js';
import { sizeCell, timeCell } from '../output/format.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { datasetId } from '../dataset/model.js';
import { datasetFilter, summaryOf, SUMMARY_OPTIONS, type SnapshotSummary } from './model.js';

const options = {
  recursive: flag("also list the snapshots of the dataset's children", { short: 'r' }),
};

/** `stor snapshot list [DATASET]`: every snapshot, or one dataset's (and its children's with -r), as ZFS orders them. */
export async function snapshotList(
  ctx: CommandContext,
  ref: string | undefined,
  recursive: boolean,
): Promise<CommandResult<SnapshotSummary[]>> {
  const t = await ctx.transport();
  const dataset = ref === undefined ? undefined : datasetId(ref);
  const filters = dataset === undefined ? [] : datasetFilter(dataset, recursive);
  const found = await queryItems(
    t,
    'pool.snapshot.query',
    ['id', 'dataset', 'snapshot_name', 'properties', 'createtxg'],
    filters,
    SUMMARY_OPTIONS,
  );
  const data = found.map(summaryOf);
  return tableResult(data, {
    columns: [
      { header: 'id', key: true },
      'dataset',
      'name',
      { header: 'created', minor: true },
      { header: 'referenced', minor: true },
    ],
    rows: data.map((s) => [s.id, s.dataset, s.name, timeCell(s.creation, ctx.io.env.TZ), sizeCell(s.referenced)]),
    empty:
      dataset === undefined ? 'No snapshots.' : `No snapshots of ${dataset}${recursive ? ' or its children' : ''}.`,
  });
}

export const snapshotListCommand = defineCommand({
  summary: 'list snapshots (of one dataset, or all)',
  effect: 'read',
  calls: ['pool.snapshot.query'],
  fanOut: 'read',
  args: { dataset: arg.optional('only this dataset (full name or mountpoint)', 'dataset') },
  options,
  examples: ['stor snapshot list', 'stor snapshot list tank/a -r', 'stor snapshot list tank/a --json'],
  run: (ctx, { dataset }, opts) => snapshotList(ctx, dataset, opts.recursive),
});
