import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { groupSummaries, type GroupSummary } from './model.js';

export async function groupList(ctx: CommandContext): Promise<CommandResult<GroupSummary[]>> {
  const data = await groupSummaries(await ctx.transport());
  return tableResult(data, {
    columns: [
      { header: 'gid', key: true },
      { header: 'name', key: true },
      'builtin',
      { header: 'members', overflow: 'wrap' },
      { header: 'privileges', overflow: 'wrap' },
    ],
    rows: data.map((g) => [g.gid, g.name, g.builtin, g.members.join(','), g.privileges?.join(',') ?? '?']),
    empty: 'No groups.',
  });
}

export const groupListCommand = defineCommand({
  summary: 'list local groups with their members and the privileges bound to them',
  effect: 'read',
  calls: ['group.query', 'user.query', 'privilege.query'],
  fanOut: 'read',
  examples: ['stor group list', "stor group list --json | jq -r '.[] | select(.builtin | not) | .name'"],
  run: (ctx) => groupList(ctx),
});
