import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { call } from '../../core/contract/client.js';
import { commentOf, datasetId } from './model.js';

export interface DatasetCreateOptions {
  parents?: boolean;
  comments?: string;
}

/** `stor dataset create --json` */
export interface DatasetCreated {
  id: string;
  mountpoint: string | null;
  comments: string | null;
}

export async function datasetCreate(ctx: CommandContext, ref: string, options: DatasetCreateOptions): Promise<CommandResult<DatasetCreated>> {
  const t = await ctx.transport();
  const name = datasetId(ref);
  // `comments` is still a field of pool.dataset.create in 25.10.1 (MW/api/v25_10_1/pool_dataset.py PoolDatasetCreate).
  const d = await call(t, 'pool.dataset.create', [
    { name, create_ancestors: options.parents === true, ...(options.comments !== undefined ? { comments: options.comments } : {}) },
  ]);
  const data = { id: d.id ?? name, mountpoint: d.mountpoint ?? null, comments: commentOf(d) };
  return {
    data,
    view: {
      kind: 'record',
      fields: [
        ['dataset', data.id],
        ['mountpoint', data.mountpoint],
        ['comments', data.comments],
      ],
    },
  };
}
