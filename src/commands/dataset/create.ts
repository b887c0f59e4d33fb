import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { datasetId, type DatasetEntry } from './model.js';

export interface DatasetCreateOptions {
  parents?: boolean;
  comments?: string;
}

/** `stor dataset create --json` */
export interface DatasetCreated {
  id: string;
  mountpoint: string;
  comments: string | null;
}

export async function datasetCreate(ctx: CommandContext, ref: string, options: DatasetCreateOptions): Promise<CommandResult<DatasetCreated>> {
  const t = await ctx.transport();
  const name = datasetId(ref);
  const d = await t.call<DatasetEntry>('pool.dataset.create', [
    { name, create_ancestors: options.parents === true, ...(options.comments !== undefined ? { comments: options.comments } : {}) },
  ]);
  const data = { id: d.id, mountpoint: d.mountpoint, comments: d.comments.value || null };
  return { data, view: { kind: 'lines', lines: [`Created dataset ${d.id}, mounted at ${d.mountpoint}.`] } };
}
