import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { formatBytes } from '../upload/progress.js';
import type { DatasetEntry } from './model.js';

/** One row of `stor dataset list --json`. */
export interface DatasetSummary {
  id: string;
  pool: string;
  mountpoint: string;
  used: number;
  available: number;
  compression: string | null;
  comments: string | null;
}

export async function datasetList(ctx: CommandContext, pool: string | undefined): Promise<CommandResult<DatasetSummary[]>> {
  const t = await ctx.transport();
  const filters = pool ? [['pool', '=', pool]] : [];
  const raw = await t.call<DatasetEntry[]>('pool.dataset.query', [filters, { order_by: ['id'] }]);
  const data = raw.map((d) => ({
    id: d.id,
    pool: d.pool,
    mountpoint: d.mountpoint,
    used: d.used.parsed,
    available: d.available.parsed,
    compression: d.compression.value,
    comments: d.comments.value || null,
  }));
  const size = (n: number) => (ctx.io.stdout.isTTY ? formatBytes(n) : n);
  return {
    data,
    view: {
      kind: 'table',
      columns: ['name', 'used', 'avail', 'compression', 'mountpoint', 'comments'],
      rows: data.map((d) => [d.id, size(d.used), size(d.available), d.compression, d.mountpoint, d.comments]),
      empty: pool ? `No datasets in pool ${pool}.` : 'No datasets.',
    },
  };
}
