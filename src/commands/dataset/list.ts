import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { queryItems } from '../../core/contract/client.js';
import { sizeCell } from '../shared/format.js';
import { bytesOf, checkSpaceProperties, commentOf } from './model.js';
import { arg, defineCommand } from '../shared/declare.js';

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

export async function datasetList(ctx: CommandContext, pool: string | undefined): Promise<CommandResult<DatasetSummary[]>> {
  const t = await ctx.transport();
  const filters = pool ? [['pool', '=', pool]] : [];
  const raw = await queryItems(t, 'pool.dataset.query', ['id', 'name', 'pool'], filters, { order_by: ['id'] });
  checkSpaceProperties('pool.dataset.query', raw);
  const data: DatasetSummary[] = raw.map((d) => ({
    id: d.id,
    name: d.name,
    pool: d.pool,
    mountpoint: d.mountpoint ?? null,
    used: bytesOf(d.used),
    available: bytesOf(d.available),
    compression: d.compression?.value ?? null,
    comments: commentOf(d),
  }));
  return {
    data,
    view: {
      kind: 'table',
      columns: ['name', { header: 'used', align: 'right' }, { header: 'avail', align: 'right' }, 'compression', 'mountpoint', { header: 'comments', overflow: 'wrap' }],
      rows: data.map((d) => [d.name, sizeCell(d.used), sizeCell(d.available), d.compression, d.mountpoint, d.comments]),
      empty: pool ? `No datasets in pool ${pool}.` : 'No datasets.',
    },
  };
}

export const datasetListCommand = defineCommand({
  summary: 'list datasets (of one pool, or all)',
  fanOut: 'read',
  args: { pool: arg.optional('only this pool') },
  examples: ['stor dataset list', 'stor dataset list tank --json'],
  run: (ctx, { pool }) => datasetList(ctx, pool),
});
