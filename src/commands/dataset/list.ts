import type { CommandContext } from '../framework/context.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { queryPages } from '../../core/contract/query-pages.js';
import { sizeCell } from '../output/format.js';
import { bytesOf, checkSpaceProperties, commentOf, datasetId, noDataset } from './model.js';
import { arg, defineCommand } from '../framework/declare.js';

/** One row of `stor dataset list --json`. */
export interface DatasetSummary {
  id: string;
  name: string;
  pool: string;
  /** Null for a volume. */
  mountpoint: string | null;
  /** Null when the appliance did not report it. */
  used: number | null;
  available: number | null;
  compression: string | null;
  comments: string | null;
}

/**
 * What a row reads: with `select`, neither `children` nor the other properties travel. Unselected,
 * every entry carries all its descendants, so one answer for 828 nested datasets passed 8 MiB;
 * selected, a page of QUERY_PAGE stays near 2.5 MB however many datasets there are.
 */
const SELECT = ['id', 'name', 'pool', 'mountpoint', 'used', 'available', 'compression', 'user_properties'];

/**
 * `stor dataset list [DATASET]`: every dataset, or the one named (a pool is its root dataset) and
 * all below it. A name that matches nothing is NOT_FOUND, as `dataset delete` reports it.
 */
export async function datasetList(
  ctx: CommandContext,
  ref: string | undefined,
): Promise<CommandResult<DatasetSummary[]>> {
  const t = await ctx.transport();
  const id = ref === undefined ? undefined : datasetId(ref);
  const filters = id
    ? [
        [
          'OR',
          [
            ['id', '=', id],
            ['id', '^', `${id}/`],
          ],
        ],
      ]
    : [];
  // order_by, select, offset and limit as 25.10.1 applies them (MW/plugins/pool_/dataset_query_utils.py:1106-1124).
  const found = await queryPages(
    t,
    'pool.dataset.query',
    ['id', 'name', 'pool'],
    filters,
    { order_by: ['id'], select: SELECT },
    (page) => checkSpaceProperties('pool.dataset.query', page),
  );
  const data: DatasetSummary[] = found.map((d) => ({
    id: d.id,
    name: d.name,
    pool: d.pool,
    mountpoint: d.mountpoint ?? null,
    used: bytesOf(d.used),
    available: bytesOf(d.available),
    compression: d.compression?.value ?? null,
    comments: commentOf(d),
  }));
  // The dataset named is always among what the filter matches: nothing matched, it is not there.
  if (id !== undefined && data.length === 0) throw await noDataset(t, id);
  return tableResult(data, {
    columns: [
      { header: 'name', key: true },
      { header: 'used', align: 'right' },
      { header: 'avail', align: 'right' },
      { header: 'compression', minor: true },
      { header: 'mountpoint', overflow: 'wrap', minor: true },
      { header: 'comments', overflow: 'wrap' },
    ],
    rows: data.map((d) => [d.name, sizeCell(d.used), sizeCell(d.available), d.compression, d.mountpoint, d.comments]),
    empty: id ? `No dataset ${id}.` : 'No datasets.',
  });
}

export const datasetListCommand = defineCommand({
  summary: 'list datasets: all, or one dataset (a pool, tank/a) and the datasets below it',
  effect: 'read',
  calls: ['pool.dataset.query'],
  fanOut: 'read',
  args: {
    dataset: arg.optional(
      'only this dataset (a pool, tank/a or /mnt/tank/a) and its children; a missing one is an error',
      'dataset',
    ),
  },
  examples: ['stor dataset list', 'stor dataset list tank --json', 'stor dataset list tank/projects'],
  run: (ctx, { dataset }) => datasetList(ctx, dataset),
});
