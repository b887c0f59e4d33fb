import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { userSummaries, type UserSummary } from './model.js';

export async function userList(ctx: CommandContext): Promise<CommandResult<UserSummary[]>> {
  const data = await userSummaries(await ctx.transport());
  return tableResult(data, {
    // uid and username name the user: never cut. Narrow, the minor columns go, rightmost first.
    columns: [
      { header: 'uid', key: true },
      { header: 'username', key: true },
      { header: 'full name', overflow: 'wrap' },
      { header: 'group', minor: true },
      { header: 'groups', overflow: 'wrap', minor: true },
      'builtin',
      'locked',
      { header: 'password', minor: true },
      { header: '2fa', minor: true },
      { header: 'keys', minor: true },
    ],
    rows: data.map((u) => [
      u.uid,
      u.username,
      u.full_name,
      u.group,
      u.groups.join(','),
      u.builtin,
      u.locked,
      u.password_disabled ? 'disabled' : 'enabled',
      u.twofactor,
      u.api_keys,
    ]),
    empty: 'No users.',
  });
}

export const userListCommand = defineCommand({
  summary: 'list users: uid, names, groups, whether built-in, locked or password-less, 2FA, API keys',
  effect: 'read',
  calls: ['user.query', 'group.query'],
  fanOut: 'read',
  examples: ['stor user list', "stor user list --json | jq -r '.[] | select(.builtin | not) | .username'"],
  run: (ctx) => userList(ctx),
});
