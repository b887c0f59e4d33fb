import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { call } from '../../core/contract/client.js';
import { commentOf, datasetId } from './model.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../shared/declare.js';

const options = {
  parents: flag('create missing parent datasets too; an existing dataset is not an error', { short: 'p' }),
  comments: value('<text>', 'a comment stored with the dataset'),
};

export type DatasetCreateOptions = OptionValues<typeof options>;

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
  return { data, view: { kind: 'lines', lines: [`Created dataset ${data.id}${data.mountpoint ? `, mounted at ${data.mountpoint}` : ''}.`] } };
}

export const datasetCreateCommand = defineCommand({
  summary: 'create a dataset, mounted at /mnt/<name>',
  args: { dataset: arg.required('full name (tank/projects) or mountpoint (/mnt/tank/projects)', 'dataset') },
  options,
  examples: ['stor dataset create tank/projects', 'stor dataset create /mnt/tank/a/b --parents --comments "team a"'],
  run: (ctx, { dataset }, opts) => datasetCreate(ctx, dataset, opts),
});
