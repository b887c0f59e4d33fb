import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { sizeCell } from '../output/format.js';
import { type CommandResult, tableResult, toned } from '../output/render.js';

/** One row of `stor pool list --json`: pool.query's fields an operator reads at a glance. */
export interface PoolSummary {
  id: number;
  name: string;
  /** ONLINE, DEGRADED, FAULTED, OFFLINE, SUSPENDED, … as the appliance says. */
  status: string;
  healthy: boolean;
  warning: boolean;
  /** Null when the pool is not imported (then there are no sizes either). */
  status_detail: string | null;
  size: number | null;
  allocated: number | null;
  free: number | null;
  path: string;
}

export async function poolList(ctx: CommandContext): Promise<CommandResult<PoolSummary[]>> {
  const t = await ctx.transport();
  const pools = await queryItems(t, 'pool.query', ['id', 'name', 'status', 'healthy', 'path'], [], {
    order_by: ['name'],
  });
  const data: PoolSummary[] = pools.map((p) => ({
    id: p.id,
    name: p.name,
    status: p.status,
    healthy: p.healthy,
    warning: p.warning === true,
    status_detail: p.status_detail ?? null,
    size: p.size ?? null,
    allocated: p.allocated ?? null,
    free: p.free ?? null,
    path: p.path,
  }));
  // The mark is the word itself, not only its colour: a piped or colourless terminal shows it too.
  const health = (p: PoolSummary) =>
    !p.healthy ? toned('UNHEALTHY', 'danger') : p.warning ? toned('warning', 'warning') : toned('ok', 'ok');
  return tableResult(data, {
    columns: [
      'name',
      'health',
      'status',
      { header: 'size', align: 'right' },
      { header: 'allocated', align: 'right' },
      { header: 'free', align: 'right' },
      { header: 'detail', overflow: 'wrap' },
    ],
    rows: data.map((p) => [
      p.name,
      health(p),
      p.status,
      sizeCell(p.size),
      sizeCell(p.allocated),
      sizeCell(p.free),
      p.status_detail,
    ]),
    empty: 'No pools.',
  });
}

export const poolListCommand = defineCommand({
  summary: 'list pools with their health at a glance: status, healthy, size, allocated, free',
  effect: 'read',
  fanOut: 'read',
  examples: [
    'stor pool list',
    'stor pool list --json | jq -r ".[] | select(.healthy | not) | .name"',
    'stor --targets nas1,nas2 pool list',
  ],
  run: (ctx) => poolList(ctx),
});
