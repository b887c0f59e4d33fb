import type { CommandContext } from '../shared/context.js';
import { confirmChange } from '../shared/prompts.js';
import type { CommandResult } from '../shared/render.js';
import { formatBytes } from '../shared/format.js';
import { call, queryItems } from '../../core/contract/client.js';
import { bytesOf, datasetId } from './model.js';
import { arg, defineCommand, flag, type OptionValues } from '../shared/declare.js';

const options = {
  recursive: flag('also delete its child datasets', { short: 'r' }),
  yes: flag('do not ask for confirmation', { short: 'y' }),
  dryRun: flag('show what would be deleted; delete nothing'),
};

export type DatasetDeleteOptions = OptionValues<typeof options>;

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
  if (options.dryRun) return { data, view: { kind: 'lines', lines: [`Would delete ${summary}.`] } };
  if (children.length > 0 && !options.recursive) {
    // Let the appliance refuse it, so the error is exactly what it says (ENOTEMPTY).
    await call(t, 'pool.dataset.delete', [id, { recursive: false, force: false }]);
  }
  await confirmChange(ctx, `Delete ${summary}? This cannot be undone.`, options.yes);
  await call(t, 'pool.dataset.delete', [id, { recursive: options.recursive === true, force: false }]);
  return { data, view: { kind: 'lines', lines: [`Deleted ${summary}.`] } };
}

export const datasetDeleteCommand = defineCommand({
  summary: 'delete a dataset and the files in it (asks first; --yes when not on a terminal)',
  args: { dataset: arg.required('full name or mountpoint', 'dataset') },
  options,
  examples: ['stor dataset delete tank/scratch --dry-run', 'stor dataset delete tank/a --recursive --yes'],
  run: (ctx, { dataset }, opts) => datasetDelete(ctx, dataset, opts),
});
