import { call, queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, type OptionValues } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { snapshotRef, summaryOf, SUMMARY_OPTIONS, type SnapshotSummary } from './model.js';

const options = {
  recursive: flag('also snapshot every child dataset, with the same name (zfs snapshot -r)', { short: 'r' }),
  existOk: flag('succeed without change when the snapshot already exists (for runbooks that re-run)'),
};

type SnapshotCreateOptions = OptionValues<typeof options>;

/** `stor snapshot create --json` */
export interface SnapshotCreated extends SnapshotSummary {
  /** False when --exist-ok found it already there. */
  created: boolean;
  recursive: boolean;
}

/** `stor snapshot create DATASET@NAME`: pool.snapshot.create with a name. */
export async function snapshotCreate(
  ctx: CommandContext,
  ref: string,
  options: SnapshotCreateOptions,
): Promise<CommandResult<SnapshotCreated>> {
  const { id, dataset, name } = snapshotRef(ref);
  const t = await ctx.transport();
  const recursive = options.recursive === true;
  const lookUp = async () =>
    (
      await queryItems(
        t,
        'pool.snapshot.query',
        ['id', 'dataset', 'snapshot_name', 'properties', 'createtxg'],
        [['id', '=', id]],
        SUMMARY_OPTIONS,
      )
    )[0];
  const existing = options.existOk ? await lookUp() : undefined;
  let entry =
    existing ??
    (await call(t, 'pool.snapshot.create', [
      { dataset, name, recursive, exclude: [], vmware_sync: false, properties: {} },
    ]));
  // 26.0 answers a create with `creation` and `createtxg` alone (MW/plugins/zfs/snapshot_create_impl.py:122-133
  // at TS-26.0.0-BETA.3); the size is read back. 25.10.1's answer has every property.
  if (entry.properties.referenced === undefined) entry = (await lookUp()) ?? entry;
  const data: SnapshotCreated = { ...summaryOf(entry), created: existing === undefined, recursive };
  if (!data.created) ctx.note(`Snapshot ${id} already exists; nothing changed.`);
  else
    ctx.note(
      `Took snapshot ${id}${recursive ? ' and the same on every child dataset' : ''}. Undo later changes with: stor snapshot rollback ${id}`,
    );
  return recordResult(data, {
    fields: [
      ['id', data.id],
      ['created', data.created],
      ['recursive', data.recursive],
      ['referenced', data.referenced],
    ],
  });
}

export const snapshotCreateCommand = defineCommand({
  summary: 'take a snapshot DATASET@NAME (a point-in-time copy of its files)',
  effect: 'change',
  calls: ['pool.snapshot.create', 'pool.snapshot.query'],
  args: { snapshot: arg.required('DATASET@NAME, e.g. tank/a@before-upgrade') },
  options,
  examples: ['stor snapshot create tank/a@before-upgrade', 'stor snapshot create tank@nightly -r --exist-ok'],
  fanOut: 'change',
  run: (ctx, { snapshot }, opts) => snapshotCreate(ctx, snapshot, opts),
});
