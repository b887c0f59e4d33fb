import type { CommandContext } from '../shared/context.js';
import { predictedDenial } from '../shared/predict-access.js';
import { confirmChange } from '../shared/prompts.js';
import type { CommandResult } from '../shared/render.js';
import { formatBytes } from '../shared/format.js';
import { call, queryItems } from '../../core/contract/client.js';
import { poolDatasetContract } from '../../core/contract/pool-dataset.js';
import { ERRNO, rpcErrors, type RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import { bytesOf, datasetId } from './model.js';

export interface DatasetDeleteOptions {
  recursive?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

/** `stor dataset delete --json` */
export interface DatasetDeleted {
  id: string;
  dry_run: boolean;
  /** Every dataset that goes (children first), the named one last unless it is a pool root. */
  deleted: string[];
  /** Bytes of files below the deleted mountpoints. */
  bytes: number;
}

/** `stor dataset delete <id>`: shows what goes, asks (or --yes), then deletes. */
export async function datasetDelete(ctx: CommandContext, ref: string, options: DatasetDeleteOptions): Promise<CommandResult<DatasetDeleted>> {
  const t = await ctx.transport();
  const id = datasetId(ref);
  // get_instance first: an unknown id is reported as the appliance reports it, before any prompt.
  const target = await call(t, 'pool.dataset.get_instance', [id]);
  const all = await queryItems(t, 'pool.dataset.query', ['id'], [['pool', '=', target.pool ?? id.split('/')[0]]]);
  const children = all.filter((d) => d.id.startsWith(`${id}/`)).map((d) => d.id);
  const isRoot = !id.includes('/');
  const deleted = [...children.sort((a, b) => b.split('/').length - a.split('/').length), ...(isRoot ? [] : [id])];
  const data: DatasetDeleted = { id, dry_run: options.dryRun === true, deleted, bytes: isRoot ? children.reduce((s, c) => s + (bytesOf(all.find((d) => d.id === c)?.used) ?? 0), 0) : (bytesOf(target.used) ?? 0) };
  const summary = `${deleted.length} dataset${deleted.length === 1 ? '' : 's'} (${deleted.join(', ')}) and ${formatBytes(data.bytes)} of files`;
  if (options.dryRun) {
    const refusal = await predictedRefusal(t, id, { hasChildren: children.length > 0, isRoot, recursive: options.recursive === true });
    if (refusal) throw refusal;
    return { data, view: { kind: 'lines', lines: [`Dry run: would delete ${summary}; nothing was deleted.`] } };
  }
  if (children.length > 0 && !options.recursive) {
    // Let the appliance refuse it, so the error is exactly what it says (ENOTEMPTY).
    await call(t, 'pool.dataset.delete', [id, { recursive: false, force: false }]);
  }
  await confirmChange(ctx, `Delete ${summary}? This cannot be undone.`, options.yes);
  await call(t, 'pool.dataset.delete', [id, { recursive: options.recursive === true, force: false }]);
  return { data, view: { kind: 'lines', lines: [`Deleted ${summary}.`] } };
}

/**
 * What the appliance would refuse the delete with, in its order and words: authorization first
 * (the dispatcher, before the method runs), then MW/plugins/pool_/dataset.py:821-824 (children
 * without recursive), then a pool root, which goes only with its pool. An unknown id has
 * already failed in get_instance, as the real delete would.
 */
async function predictedRefusal(t: Transport, id: string, o: { hasChildren: boolean; isRoot: boolean; recursive: boolean }): Promise<RpcError | null> {
  const denied = await predictedDenial(t, poolDatasetContract['pool.dataset.delete'].access);
  if (denied) return denied;
  if (o.hasChildren && !o.recursive) return rpcErrors.call(ERRNO.ENOTEMPTY, `Failed to delete dataset: cannot destroy '${id}': filesystem has children`);
  if (o.isRoot && !o.recursive) return rpcErrors.call(ERRNO.EINVAL, `Failed to delete dataset: '${id}' is the root dataset of pool ${id}; it goes only with the pool`);
  return null;
}
