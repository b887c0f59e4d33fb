import type { CommandContext } from '../framework/context.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { queryItems } from '../../core/contract/client.js';
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
 * Datasets per call. Unselected, every entry carries all its descendants (`children`), so one answer
 * for 828 nested datasets passed 8 MiB; selected and paged, an answer stays near
 * half a megabyte however many datasets there are.
 */
export const DATASET_PAGE = 500;
/** What a row reads: with `select`, neither `children` nor the other properties travel. */
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
  const data: DatasetSummary[] = [];
  const seen = new Set<string>();
  // order_by, select, offset and limit as 25.10.1 applies them (MW/plugins/pool_/dataset_query_utils.py:1106-1124).
  for (let offset = 0; ; offset += DATASET_PAGE) {
    const page = await queryItems(t, 'pool.dataset.query', ['id', 'name', 'pool'], filters, {
      order_by: ['id'],
      select: SELECT,
      offset,
      limit: DATASET_PAGE,
    });
    checkSpaceProperties('pool.dataset.query', page);
    const before = data.length;
    for (const d of page) {
      // A dataset made or removed between two pages shifts the rest: none is listed twice.
      if (seen.has(d.id)) continue;
      seen.add(d.id);
      data.push({
        id: d.id,
        name: d.name,
        pool: d.pool,
        mountpoint: d.mountpoint ?? null,
        used: bytesOf(d.used),
        available: bytesOf(d.available),
        compression: d.compression?.value ?? null,
        comments: commentOf(d),
      });
    }
    // A short page is the last; so is one past the limit or with nothing new (a target that
    // ignores limit or offset would otherwise be asked for ever).
    if (page.length !== DATASET_PAGE || data.length === before) break;
  }
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
