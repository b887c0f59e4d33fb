import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { call, queryItems } from '../../core/contract/client.js';
import { RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import { commentOf, datasetId } from './model.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../framework/declare.js';

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
  /** False when `--parents` found the dataset already there (nothing was changed, as `mkdir -p`). */
  created: boolean;
}

/**
 * `stor dataset create <id>`. Without --parents an existing dataset is the appliance's error
 * (25.10.1: "Path /mnt/… already exists", MW/plugins/pool_/dataset.py:471). With --parents it is
 * safe to re-run: a filesystem dataset that is already there is success, left as it is.
 */
export async function datasetCreate(
  ctx: CommandContext,
  ref: string,
  options: DatasetCreateOptions,
): Promise<CommandResult<DatasetCreated>> {
  const t = await ctx.transport();
  const name = datasetId(ref);
  let data: DatasetCreated;
  try {
    // `comments` is still a field of pool.dataset.create in 25.10.1 (MW/api/v25_10_1/pool_dataset.py PoolDatasetCreate).
    const d = await call(t, 'pool.dataset.create', [
      {
        name,
        create_ancestors: options.parents === true,
        ...(options.comments !== undefined ? { comments: options.comments } : {}),
      },
    ]);
    data = { id: d.id ?? name, mountpoint: d.mountpoint ?? null, comments: commentOf(d), created: true };
  } catch (err) {
    // Asked after the refusal, not before: a dataset made meanwhile by someone else counts too.
    const existing = options.parents && err instanceof RpcError ? await existingFilesystem(t, name) : undefined;
    if (!existing) throw await withParentsHint(t, name, err, options.parents === true);
    data = { ...existing, created: false };
  }
  if (!data.created) ctx.note(`stor: dataset ${data.id} already exists; nothing changed`);
  return recordResult(data, {
    fields: [
      ['dataset', data.id],
      ['created', data.created],
      ['mountpoint', data.mountpoint],
      ['comments', data.comments],
    ],
  });
}

/**
 * Without --parents, a refusal of a dataset whose parent is missing (25.10.1: "Parent dataset
 * (tank/a) does not exist.", MW/plugins/pool_/dataset.py) gets the flag that makes it: read after
 * the refusal, as for an existing dataset.
 */
async function withParentsHint(t: Transport, name: string, err: unknown, parents: boolean): Promise<unknown> {
  const parent = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : undefined;
  if (parents || !(err instanceof RpcError) || parent === undefined || !parent.includes('/')) return err;
  const found = await queryItems(t, 'pool.dataset.query', ['id'], [['id', '=', parent]]).catch(() => undefined);
  if (found?.length === 0)
    err.hint = `${parent} does not exist; \`stor dataset create ${name} --parents\` creates the missing parents too`;
  return err;
}

/** The dataset `name` when it exists as a filesystem; a volume of that name is not what was asked for. */
async function existingFilesystem(t: Transport, name: string): Promise<Omit<DatasetCreated, 'created'> | undefined> {
  const found = await queryItems(t, 'pool.dataset.query', ['id', 'type'], [['id', '=', name]]).catch(() => []);
  const d = found[0];
  if (!d || d.type !== 'FILESYSTEM') return undefined;
  return { id: d.id, mountpoint: d.mountpoint ?? null, comments: commentOf(d) };
}

export const datasetCreateCommand = defineCommand({
  summary: 'create a dataset, mounted at /mnt/<name>',
  effect: 'change',
  calls: ['pool.dataset.create', 'pool.dataset.query'],
  args: { dataset: arg.required('full name (tank/projects) or mountpoint (/mnt/tank/projects)', 'dataset') },
  options,
  examples: ['stor dataset create tank/projects', 'stor dataset create /mnt/tank/a/b --parents --comments "team a"'],
  fanOut: 'change',
  run: (ctx, { dataset }, opts) => datasetCreate(ctx, dataset, opts),
});
