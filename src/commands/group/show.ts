import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { findGroup, groupRecord, groupSummary, type GroupSummary } from './model.js';

export async function groupShow(ctx: CommandContext, ref: string): Promise<CommandResult<GroupSummary>> {
  const t = await ctx.transport();
  const data = await groupSummary(t, (await findGroup(t, ref)).id);
  return { data, view: groupRecord(data, `Group ${data.name} (gid ${data.gid})`) };
}

export const groupShowCommand = defineCommand({
  summary: 'one local group: gid, members, privileges and roles',
  effect: 'read',
  calls: ['group.query', 'user.query', 'privilege.query'],
  fanOut: 'read',
  args: { group: arg.required('group name (or gid)') },
  examples: ['stor group show ops', 'stor group show 3000 --json'],
  run: (ctx, { group }) => groupShow(ctx, group),
});
