import type { CommandContext } from '../framework/context.js';
import { predictedDenial } from '../shared/predict-access.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange } from '../shared/prompts.js';
import { toned, type CommandResult, type View } from '../output/render.js';
import { formatBytes, sizeCell } from '../output/format.js';
import { call, queryItems } from '../../core/contract/client.js';
import { poolDatasetContract } from '../../core/contract/pool-dataset.js';
import type { RpcError } from '../../core/errors.js';
import { datasetDeleteRefusal } from '../../core/refusals/pool-dataset.js';
import type { Transport } from '../../core/transport/transport.js';
import { bytesOf, datasetId, findDataset } from './model.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { arg, defineCommand, flag, ignoreNotFoundFlag, type OptionValues, yesFlag } from '../framework/declare.js';

const options = {
  recursive: flag('also delete its child datasets', { short: 'r' }),
  yes: yesFlag(),
  dryRun: flag('show what would be deleted; delete nothing'),
  ignoreNotFound: ignoreNotFoundFlag(),
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
export async function datasetDelete(
  ctx: CommandContext,
  ref: string,
  options: DatasetDeleteOptions,
): Promise<CommandResult<DatasetDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const id = datasetId(ref);
  // Read first: an unknown id is NOT_FOUND before any prompt, dry run or not.
  const lookup = await lookupOrNothing(options.ignoreNotFound, () => findDataset(t, id));
  if ('missing' in lookup) return nothingDeleted(ctx, id, lookup.missing);
  const target = lookup.found;
  const pool = target.pool ?? id.split('/')[0]!;
  const all = await queryItems(t, 'pool.dataset.query', ['id'], [['pool', '=', pool]]);
  const children = all.filter((d) => d.id.startsWith(`${id}/`)).map((d) => d.id);
  const isRoot = !id.includes('/');
  const deleted = goingOrder(id, children);
  const data: DatasetDeleted = {
    id,
    dry_run: options.dryRun === true,
    deleted,
    bytes: isRoot
      ? children.reduce((s, c) => s + (bytesOf(all.find((d) => d.id === c)?.used) ?? 0), 0)
      : (bytesOf(target.used) ?? 0),
  };
  const summary = `${deleted.length} dataset${deleted.length === 1 ? '' : 's'} (${deleted.join(', ')}) and ${formatBytes(data.bytes)} of files`;
  // The refusal is predicted from reads; pool.dataset.delete is called only after consent, once
  // (had the children gone meanwhile, an early call would have deleted the dataset).
  // Should the prediction be wrong, that call gives the appliance's own error.
  const snapshots = await snapshotsBelow(t, id);
  const refusal = await predictedRefusal(t, id, {
    hasChildren: children.length > 0,
    isRoot,
    recursive: options.recursive === true,
    snapshots,
    volume: target.type === 'VOLUME',
  });
  if (refusal) throw refusal;
  if (options.dryRun) {
    ctx.note('stor: dry run: nothing was deleted');
    return { data, view: deletedView(data) };
  }
  // Not a snapshot: the dataset's snapshots go with it (and block a delete without --recursive).
  const preview = `stor dataset delete ${id}${options.recursive ? ' --recursive' : ''} --dry-run`;
  const asked = await confirmChange(
    ctx,
    `Delete ${summary}? This cannot be undone.`,
    options.yes,
    `preview with \`${preview}\``,
  );
  if (options.recursive) {
    // A child created while the question waited would go too, unnamed: hold to the plan.
    data.deleted = [
      ...(await holdToPlan(ctx, {
        shown: deleted,
        pick: (plan: DatasetDeleted) => plan.deleted,
        asked,
        reread: async () =>
          goingOrder(
            id,
            (await queryItems(t, 'pool.dataset.query', ['id'], [['pool', '=', pool]]))
              .map((d) => d.id)
              .filter((c) => c.startsWith(`${id}/`)),
          ),
        what: `${id} --recursive would now also delete`,
        preview,
      })),
    ];
  }
  await call(t, 'pool.dataset.delete', [id, { recursive: options.recursive === true, force: false }]);
  return { data, view: deletedView(data) };
}

/** What a delete takes, deepest children first, the named dataset last unless it is a pool root (which goes only with its pool). */
function goingOrder(id: string, children: string[]): string[] {
  return [...children.sort((a, b) => b.split('/').length - a.split('/').length), ...(id.includes('/') ? [id] : [])];
}

function deletedView(data: DatasetDeleted): View {
  return {
    kind: 'record',
    fields: [
      ['dataset', data.id],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      [data.dry_run ? 'would delete' : 'deleted', data.deleted],
      ['bytes', sizeCell(data.bytes)],
    ],
  };
}

/**
 * What the appliance would refuse the delete with, in its order and words: authorization first
 * (the dispatcher, before the method runs), then MW/plugins/pool_/dataset.py:821-824 (children
 * without recursive), then a pool root, which goes only with its pool. An unknown id has
 * already failed as NOT_FOUND.
 */
async function predictedRefusal(
  t: Transport,
  id: string,
  o: { hasChildren: boolean; isRoot: boolean; recursive: boolean; snapshots: string[]; volume: boolean },
): Promise<RpcError | null> {
  const denied = await predictedDenial(t, poolDatasetContract['pool.dataset.delete'].access);
  if (denied) return denied;
  // What goes with --recursive is shown by its dry run, before anyone types it with --yes.
  const recursiveHint = (err: RpcError) =>
    Object.assign(err, {
      hint: `\`stor dataset delete ${id} --recursive --dry-run\` shows what --recursive deletes with it`,
    });
  if (o.hasChildren && !o.recursive) return recursiveHint(datasetDeleteRefusal.children(id));
  if (o.isRoot && !o.recursive) return datasetDeleteRefusal.poolRoot(id);
  // Then `zfs destroy` itself refuses and lists them.
  if (o.snapshots.length > 0 && !o.recursive)
    return recursiveHint(datasetDeleteRefusal.snapshots(id, o.volume ? 'volume' : 'filesystem', o.snapshots));
  return null;
}

/**
 * Snapshots of the dataset and its children, which a delete without recursive cannot pass. An
 * identity that may not read snapshots gets none: the delete itself will say what it finds.
 */
async function snapshotsBelow(t: Transport, id: string): Promise<string[]> {
  try {
    const found = await queryItems(t, 'pool.snapshot.query', ['id', 'dataset'], [], { select: ['id', 'dataset'] });
    return found.filter((s) => s.dataset === id || s.dataset.startsWith(`${id}/`)).map((s) => s.id);
  } catch {
    return [];
  }
}

export const datasetDeleteCommand = defineCommand({
  summary: 'delete a dataset and the files in it (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['pool.dataset.delete', 'pool.dataset.query', 'pool.snapshot.query'],
  asks: true,
  args: { dataset: arg.required('full name or mountpoint', 'dataset') },
  options,
  examples: [
    'stor dataset delete tank/scratch --dry-run',
    'stor dataset delete tank/a --recursive --yes',
    'stor dataset delete tank/a --recursive --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { dataset }, opts) => datasetDelete(ctx, dataset, opts),
});
