import { call } from '../../../core/contract/client.js';
import type { CommandContext } from '../../framework/context.js';
import { defineCommand } from '../../framework/declare.js';
import { type CommandResult, recordResult } from '../../output/render.js';
import { taskRecord } from './record.js';
import { findTask, taskIdArg, taskIdOf, type SnapshotTask } from './model.js';

/** `stor snapshot task show ID`: one task, as pool.snapshottask.get_instance answers it. */
export async function snapshotTaskShow(ctx: CommandContext, raw: string): Promise<CommandResult<SnapshotTask>> {
  const id = taskIdOf(raw);
  const t = await ctx.transport();
  await findTask(t, id);
  const task = (await call(t, 'pool.snapshottask.get_instance', [id])) as SnapshotTask;
  return recordResult(task, { fields: taskRecord(task) });
}

export const snapshotTaskShowCommand = defineCommand({
  summary: 'one periodic snapshot task: its dataset, schedule, lifetime and last run',
  effect: 'read',
  calls: ['pool.snapshottask.query', 'pool.snapshottask.get_instance'],
  fanOut: 'read',
  args: taskIdArg,
  examples: ['stor snapshot task show 1', 'stor snapshot task show 1 --json'],
  run: (ctx, { id }) => snapshotTaskShow(ctx, id),
});
