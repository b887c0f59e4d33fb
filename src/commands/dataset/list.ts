import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { callChecked } from '../../core/contract/checked-call.js';
import { formatBytes } from '../upload/progress.js';
import { commentOf } from './model.js';

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
  const raw = await callChecked(t, 'pool.dataset.query', [filters, { order_by: ['id'] }]);
  const data: DatasetSummary[] = raw.map((d) => ({
    id: d.id,
    name: d.name,
    pool: d.pool,
    mountpoint: d.mountpoint ?? null,
    used: d.used?.parsed ?? null,
    available: d.available?.parsed ?? null,
    compression: d.compression?.value ?? null,
    comments: commentOf(d),
  }));
  const size = (n: number | null) => (n === null ? null : ctx.io.stdout.isTTY ? formatBytes(n) : n);
  return {
    data,
    view: {
      kind: 'table',
      columns: ['name', 'used', 'avail', 'compression', 'mountpoint', 'comments'],
      rows: data.map((d) => [d.name, size(d.used), size(d.available), d.compression, d.mountpoint, d.comments]),
      empty: pool ? `No datasets in pool ${pool}.` : 'No datasets.',
    },
  };
}
