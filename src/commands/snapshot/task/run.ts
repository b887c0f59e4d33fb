import { call, queryItems } from '../../../core/contract/client.js';
import type { Transport } from '../../../core/transport/transport.js';
import type { CommandContext } from '../../framework/context.js';
import { defineCommand } from '../../framework/declare.js';
import { type CommandResult, recordResult } from '../../output/render.js';
import { datasetFilter } from '../model.js';
import { findTask, stateOf, taskIdArg, taskIdOf } from './model.js';

/** `stor snapshot task run --json` */
export interface SnapshotTaskRan {
  id: number;
  dataset: string;
  /** DATASET@NAME of each snapshot there after the run that was not before it. */
  taken: string[];
  /** The task's state after the run, as zettarepl reports it (FINISHED, ERROR: …, RUNNING). */
  state: string;
}

const snapshotIds = async (t: Pick<Transport, 'call'>, dataset: string, recursive: boolean) =>
  (await queryItems(t, 'pool.snapshot.query', ['id'], datasetFilter(dataset, recursive), { select: ['id'] })).map(
    (s) => s.id,
  );

/**
 * `stor snapshot task run ID`: pool.snapshottask.run, then the dataset's snapshots read again to
 * say what was taken. The appliance runs the task through zettarepl in the background
 * (MW/plugins/snapshot.py:321-332), so a slow one may not be there yet; the state says so.
 */
export async function snapshotTaskRun(ctx: CommandContext, raw: string): Promise<CommandResult<SnapshotTaskRan>> {
  const id = taskIdOf(raw);
  const t = await ctx.transport();
  const task = await findTask(t, id);
  const before = new Set(await snapshotIds(t, task.dataset, task.recursive));
  await call(t, 'pool.snapshottask.run', [id]);
  const taken = (await snapshotIds(t, task.dataset, task.recursive)).filter((s) => !before.has(s));
  const data: SnapshotTaskRan = { id, dataset: task.dataset, taken, state: stateOf(await findTask(t, id)) };
  if (taken.length > 0) ctx.note(`stor: took ${taken.join(', ')}`);
  else ctx.note(`stor: no new snapshot yet (state ${data.state}); \`stor snapshot list ${task.dataset}\` shows them`);
  return recordResult(data, {
    fields: [
      ['task', id],
      ['dataset', data.dataset],
      ['state', data.state],
    ],
    list: { label: 'taken', items: taken },
  });
}

export const snapshotTaskRunCommand = defineCommand({
  summary: "take a periodic snapshot task's snapshot now, and say what was taken",
  effect: 'change',
  calls: ['pool.snapshottask.run', 'pool.snapshottask.query', 'pool.snapshot.query'],
  args: taskIdArg,
  examples: ['stor snapshot task run 1', 'stor snapshot task run 1 --json'],
  fanOut: 'change',
  run: (ctx, { id }) => snapshotTaskRun(ctx, id),
});
