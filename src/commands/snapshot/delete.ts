import { call, queryItems } from '../../core/contract/client.js';
import { poolSnapshotContract } from '../../core/contract/pool-snapshot.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, ignoreNotFoundFlag, type OptionValues, yesFlag } from '../framework/declare.js';
import { predictedDenial } from '../shared/predict-access.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { datasetFilter, findSnapshot, snapshotRef } from './model.js';

const options = {
  recursive: flag('also delete the snapshot of this name on every child dataset (zfs destroy -r)', { short: 'r' }),
  yes: yesFlag(),
  dryRun: flag('show what would be deleted; delete nothing'),
  ignoreNotFound: ignoreNotFoundFlag(),
};

type SnapshotDeleteOptions = OptionValues<typeof options>;

/** `stor snapshot delete --json` */
export interface SnapshotDeleted {
  id: string;
  dry_run: boolean;
  /** Every snapshot that goes (with --recursive, the children's of the same name too). */
  deleted: string[];
}

/** `stor snapshot delete DATASET@NAME`: shows what goes, asks (or --yes), then pool.snapshot.delete. */
export async function snapshotDelete(
  ctx: CommandContext,
  ref: string,
  options: SnapshotDeleteOptions,
): Promise<CommandResult<SnapshotDeleted | NothingDeleted>> {
  const { id, dataset, name } = snapshotRef(ref);
  const t = await ctx.transport();
  const recursive = options.recursive === true;
  // Read first: an unknown snapshot is NOT_FOUND before any prompt, dry run or not.
  const lookup = await lookupOrNothing(options.ignoreNotFound, () => findSnapshot(t, id));
  if ('missing' in lookup) return nothingDeleted(ctx, id, lookup.missing);
  const going = async () =>
    recursive
      ? (
          await queryItems(
            t,
            'pool.snapshot.query',
            ['id', 'snapshot_name'],
            [...datasetFilter(dataset, true), ['snapshot_name', '=', name]],
          )
        ).map((s) => s.id)
      : [id];
  const deleted = await going();
  const data: SnapshotDeleted = { id, dry_run: options.dryRun === true, deleted };
  const outcome = () =>
    recordResult(data, {
      fields: [
        ['id', id],
        ['dry run', data.dry_run],
      ],
      list: { label: options.dryRun ? 'would delete' : 'deleted', items: data.deleted },
    });
  if (options.dryRun) {
    const denied = await predictedDenial(t, poolSnapshotContract['pool.snapshot.delete'].access);
    if (denied) throw denied;
    ctx.note(`Dry run: would delete ${deleted.join(', ')}; nothing was deleted.`);
    return outcome();
  }
  const preview = `stor snapshot delete ${id}${recursive ? ' -r' : ''} --dry-run`;
  const asked = await confirmChange(
    ctx,
    `Delete snapshot${deleted.length === 1 ? '' : 's'} ${deleted.join(', ')}? This cannot be undone.`,
    options.yes,
    `preview with \`${preview}\``,
  );
  // With -r, a child's snapshot of this name taken while the question waited would go too: hold to the plan.
  if (recursive) {
    data.deleted = [
      ...(await holdToPlan(ctx, {
        shown: deleted,
        pick: (plan: SnapshotDeleted) => plan.deleted,
        asked,
        reread: going,
        what: `${id} -r would now also delete`,
        preview,
      })),
    ];
  }
  await call(t, 'pool.snapshot.delete', [id, { defer: false, recursive }]);
  ctx.note(`Deleted ${data.deleted.join(', ')}.`);
  return outcome();
}

export const snapshotDeleteCommand = defineCommand({
  summary: 'delete a snapshot DATASET@NAME (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['pool.snapshot.delete', 'pool.snapshot.query'],
  asks: true,
  args: { snapshot: arg.required('DATASET@NAME') },
  options,
  examples: [
    'stor snapshot delete tank/a@before-upgrade --dry-run',
    'stor snapshot delete tank@nightly -r --yes',
    'stor snapshot delete tank/a@before-upgrade --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { snapshot }, opts) => snapshotDelete(ctx, snapshot, opts),
});
