import { call, queryItems } from '../../core/contract/client.js';
import { poolSnapshotContract } from '../../core/contract/pool-snapshot.js';
import { snapshotRollbackRefusal } from '../../core/refusals/pool-snapshot.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, type OptionValues, yesFlag } from '../framework/declare.js';
import { predictedDenial } from '../shared/predict-access.js';
import { targetRelease } from '../shared/target-release.js';
import { RELEASES } from '../../core/releases/index.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { findSnapshot, snapshotRef } from './model.js';

const options = {
  recursive: flag('destroy the snapshots taken after this one, which a rollback past them needs (zfs rollback -r)', {
    short: 'r',
  }),
  force: flag('force-unmount clones of the later snapshots (zfs rollback -f)'),
  yes: yesFlag(),
  dryRun: flag('show what would be lost; change nothing'),
};

type SnapshotRollbackOptions = OptionValues<typeof options>;

/** `stor snapshot rollback --json` */
export interface SnapshotRolledBack {
  id: string;
  dataset: string;
  dry_run: boolean;
  /** Snapshots of the dataset taken after this one, oldest first: a rollback destroys them. */
  destroyed: string[];
}

/** `stor snapshot rollback DATASET@NAME`: says what is lost, asks (or --yes), then pool.snapshot.rollback. */
export async function snapshotRollback(
  ctx: CommandContext,
  ref: string,
  options: SnapshotRollbackOptions,
): Promise<CommandResult<SnapshotRolledBack>> {
  const { id, dataset } = snapshotRef(ref);
  const t = await ctx.transport();
  // Read first: an unknown snapshot is NOT_FOUND before any prompt.
  const target = await findSnapshot(t, id);
  const takenAfter = async () => {
    const siblings = await queryItems(t, 'pool.snapshot.query', ['id', 'createtxg'], [['dataset', '=', dataset]]);
    return siblings
      .filter((s) => Number(s.createtxg) > Number(target.createtxg))
      .sort((a, b) => Number(a.createtxg) - Number(b.createtxg))
      .map((s) => s.id);
  };
  const later = await takenAfter();
  const data: SnapshotRolledBack = { id, dataset, dry_run: options.dryRun === true, destroyed: later };
  const refused = later.length > 0 && !options.recursive;
  if (options.dryRun || refused) {
    // The dispatcher's refusal comes before the method's own.
    const denied = await predictedDenial(t, poolSnapshotContract['pool.snapshot.rollback'].access);
    if (denied) throw denied;
  }
  if (refused) {
    // `zfs rollback` refuses to pass later snapshots without -r; its words, from the refusal the
    // emulator throws too (core/refusals/), so the dry run predicts the real run's refusal and
    // neither asks first (MW/plugins/zfs_/snapshot_actions.py:74-80).
    ctx.note(
      `${dataset} has ${later.length} snapshot${later.length === 1 ? '' : 's'} taken after ${id}; rolling back destroys ${later.length === 1 ? 'it' : 'them'}. Add -r to do so.`,
    );
    // 26.0's rollback_impl words it as its ValueError (MW/plugins/zfs/snapshot_rollback_impl.py:135-141 at TS-26.0.0-BETA.3).
    const { release } = await targetRelease(t);
    throw release !== null && RELEASES[release].snapshotActionsThroughZfsResource
      ? snapshotRollbackRefusal.laterSnapshots26(later)
      : snapshotRollbackRefusal.laterSnapshots(id, later);
  }
  const lost = `every change to ${dataset} since ${id}${later.length > 0 ? ` and the later snapshot${later.length === 1 ? '' : 's'} ${later.join(', ')}` : ''}`;
  const outcome = () =>
    recordResult(data, {
      fields: [
        ['id', id],
        ['dataset', dataset],
        ['dry run', data.dry_run],
      ],
      list: { label: options.dryRun ? 'would destroy' : 'destroyed', items: data.destroyed },
    });
  if (options.dryRun) {
    ctx.note(`Dry run: rolling back would lose ${lost}; nothing was changed.`);
    return outcome();
  }
  const preview = `stor snapshot rollback ${id}${options.recursive ? ' -r' : ''} --dry-run`;
  const asked = await confirmChange(
    ctx,
    `Roll ${dataset} back to ${id}, losing ${lost}?`,
    options.yes,
    `preview with \`${preview}\``,
  );
  // With -r, a snapshot taken while the question waited would be destroyed too: hold to the plan.
  // (Without -r zfs refuses to pass it, MW/plugins/zfs_/snapshot_actions.py:74-80, changing nothing.)
  if (options.recursive) {
    data.destroyed = [
      ...(await holdToPlan(ctx, {
        shown: later,
        pick: (plan: SnapshotRolledBack) => plan.destroyed,
        asked,
        reread: takenAfter,
        what: `rolling back to ${id} would now also destroy`,
        preview,
      })),
    ];
  }
  await call(t, 'pool.snapshot.rollback', [
    id,
    {
      recursive: options.recursive === true,
      recursive_clones: false,
      force: options.force === true,
      recursive_rollback: false,
    },
  ]);
  ctx.note(`Rolled ${dataset} back to ${id}.`);
  return outcome();
}

export const snapshotRollbackCommand = defineCommand({
  summary: 'roll a dataset back to a snapshot DATASET@NAME (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['pool.snapshot.rollback', 'pool.snapshot.query'],
  asks: true,
  args: { snapshot: arg.required('DATASET@NAME') },
  options,
  examples: [
    'stor snapshot rollback tank/a@before-upgrade --dry-run',
    'stor snapshot rollback tank/a@before-upgrade --yes',
    'stor snapshot rollback tank/a@monday -r --yes',
  ],
  notes: "Files of the dataset's children are not touched: they have snapshots of their own.",
  fanOut: 'change',
  run: (ctx, { snapshot }, opts) => snapshotRollback(ctx, snapshot, opts),
});
