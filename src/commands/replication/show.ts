import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { findReplication, replicationArg, type Replication } from './model.js';
import { replicationRecord } from './record.js';

/** `stor replication show ID|NAME`: one task, as replication.get_instance answers it. */
export async function replicationShow(ctx: CommandContext, ref: string): Promise<CommandResult<Replication>> {
  const t = await ctx.transport();
  const { id } = await findReplication(t, ref);
  const task = (await call(t, 'replication.get_instance', [id])) as Replication;
  return recordResult(task, { fields: replicationRecord(task) });
}

export const replicationShowCommand = defineCommand({
  summary: 'one replication task: what goes where, its snapshot tasks, schedule, retention and last run',
  effect: 'read',
  calls: ['replication.query', 'replication.get_instance'],
  fanOut: 'read',
  args: replicationArg,
  examples: ['stor replication show 1', 'stor replication show nightly-backup --json'],
  run: (ctx, { task }) => replicationShow(ctx, task),
});
