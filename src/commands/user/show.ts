import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { findUser, userRecord, userSummary, type UserSummary } from './model.js';

export async function userShow(ctx: CommandContext, ref: string): Promise<CommandResult<UserSummary>> {
  const t = await ctx.transport();
  const data = await userSummary(t, (await findUser(t, ref)).id);
  return { data, view: userRecord(data, `User ${data.username} (uid ${data.uid})`) };
}

export const userShowCommand = defineCommand({
  summary: 'one user: uid, groups, shell, home, password and 2FA state, API keys, roles',
  effect: 'read',
  calls: ['user.query', 'group.query'],
  fanOut: 'read',
  args: { user: arg.required('username (or uid)') },
  examples: ['stor user show alice', 'stor user show 3000 --json'],
  run: (ctx, { user }) => userShow(ctx, user),
});
