import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, list, toggle, value, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { findGroupIn, listGroups } from '../group/model.js';
import { findUser, groupIdsIn, hintValidShells, userRecord, userSummary, type UserSummary } from './model.js';
import { readNewPassword } from './new-password.js';
import { refuseStdinForTargets } from '../shared/stdin-once.js';

const options = {
  name: value('<username>', 'rename the user'),
  fullName: value('<text>', 'full name or description'),
  group: value('<name>', 'primary group, by name (must exist)'),
  groups: list('<names>', 'auxiliary groups by name: replaces the list (`--groups ""` empties it)'),
  passwordStdin: flag('set a new password from the first line of standard input', { conflicts: ['passwordDisabled'] }),
  passwordDisabled: toggle(
    'disable password login (also turns SMB access off, which needs a password)',
    'enable password login again',
  ),
  shell: value('<path>', 'login shell'),
  home: value('<path>', 'home directory'),
};

type UserUpdateOptions = OptionValues<typeof options>;

/** `stor user update --json` */
export interface UserUpdated extends UserSummary {
  /** The fields sent, as user.update names them (`password` when one was set; never its value). */
  changed: string[];
}

export async function userUpdate(
  ctx: CommandContext,
  ref: string,
  opts: UserUpdateOptions,
): Promise<CommandResult<UserUpdated>> {
  // `--password-stdin` absent is false, not undefined; every other option is undefined when absent.
  const given = Object.entries(opts).filter(([key, v]) => v !== undefined && !(key === 'passwordStdin' && v === false));
  if (given.length === 0) {
    throw new StorError(E.NOTHING_TO_UPDATE, 'nothing to change', {
      hint: 'pass one of the options `stor user update --help` lists',
    });
  }
  const password = opts.passwordStdin ? await readNewPassword(ctx) : null;
  const t = await ctx.transport();
  const user = await findUser(t, ref);
  const groups = opts.group !== undefined || opts.groups !== undefined ? await listGroups(t) : [];
  const update = {
    ...(opts.name !== undefined ? { username: opts.name } : {}),
    ...(opts.fullName !== undefined ? { full_name: opts.fullName } : {}),
    ...(opts.group !== undefined ? { group: findGroupIn(groups, opts.group).id } : {}),
    ...(opts.groups !== undefined ? { groups: groupIdsIn(groups, opts.groups) } : {}),
    ...(password !== null ? { password } : {}),
    ...(opts.passwordDisabled === true ? { password_disabled: true, smb: false } : {}),
    ...(opts.passwordDisabled === false ? { password_disabled: false } : {}),
    ...(opts.shell !== undefined ? { shell: opts.shell } : {}),
    ...(opts.home !== undefined ? { home: opts.home } : {}),
  };
  try {
    await call(t, 'user.update', [user.id, update]);
  } catch (err) {
    const primary = update.group ?? (typeof user.group.id === 'number' ? user.group.id : undefined);
    await hintValidShells(t, err, [...(primary !== undefined ? [primary] : []), ...(update.groups ?? user.groups)]);
    throw err;
  }
  const data = { ...(await userSummary(t, user.id)), changed: Object.keys(update) };
  return { data, view: userRecord(data, `Updated user ${data.username} (${data.changed.join(', ')})`) };
}

export const userUpdateCommand = defineCommand({
  summary: 'change a local user: names, groups (replaced), password (from standard input), shell, home',
  effect: 'change',
  calls: ['user.update', 'user.query', 'group.query'],
  args: { user: arg.required('username (or uid)') },
  options,
  examples: [
    'stor user update alice --groups ops,backup --full-name "Alice B"',
    'printf \'%s\\n\' "$NEW" | stor user update alice --password-stdin',
  ],
  fanOut: 'change',
  checkTargets: (_args, opts) => {
    if (opts.passwordStdin) refuseStdinForTargets('--password-stdin');
  },
  run: (ctx, { user }, opts) => userUpdate(ctx, user, opts),
});
