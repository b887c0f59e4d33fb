import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, list, value, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { listGroups } from '../group/model.js';
import { groupIdsIn, hintValidShells, listUsers, userRecord, userSummary, type UserSummary } from './model.js';
import { readNewPassword } from './new-password.js';
import { refuseStdinForTargets } from '../shared/stdin-once.js';

const options = {
  group: value(
    '<name>',
    'primary group by name: an existing one, or one named like the user, created if missing (the default); another missing one is refused unless --create-group',
  ),
  createGroup: flag('with --group: create that group when it does not exist'),
  groups: list('<names>', 'auxiliary groups by name (comma-separated)'),
  fullName: value('<text>', 'full name or description (default: the username)'),
  passwordStdin: flag('read the password from the first line of standard input', { conflicts: ['passwordDisabled'] }),
  passwordDisabled: flag('no password login (API keys only); also turns SMB access off, which needs a password'),
  shell: value('<path>', "login shell (default: the appliance's, /usr/bin/zsh)"),
  home: value('<path>', "home directory (default: the appliance's, /var/empty)"),
  existOk: flag('exit 0 when a user of that name exists, changing nothing (for re-run scripts)'),
};

type UserCreateOptions = OptionValues<typeof options>;

/** `stor user create --json` */
export interface UserCreated extends UserSummary {
  /** False when the user existed and `--exist-ok` left it as it was. */
  created: boolean;
  /** True when the primary group was created for this user. */
  group_created: boolean;
}

interface PrimaryGroup {
  /** What user.create gets: the group's id, or 25.10.1's `group_create` for a group named like the user. */
  payload: { group: number } | { group_create: true };
  /** A group stor created itself (named otherwise than the user), to remove if user.create fails. */
  createdId: number | null;
}

/**
 * The primary group: an existing one by name; a new one named like the user through user.create's
 * own `group_create` (MW/plugins/account.py:646-668), which also takes it back if the user
 * cannot be created; a new one named otherwise through group.create, only when asked
 * (`--create-group`).
 */
async function primaryGroup(t: Transport, username: string, name: string, create: boolean): Promise<PrimaryGroup> {
  const [existing] = await listGroups(t, [['name', '=', name]]);
  if (existing) return { payload: { group: existing.id }, createdId: null };
  if (name === username) return { payload: { group_create: true }, createdId: null };
  // A typo (`--group staf`) must not quietly make a new group and put the user in it.
  if (!create) {
    throw new StorError(E.NOT_FOUND, `no local group "${name}" for ${username}'s primary group`, {
      hint: `create it with \`stor group create ${name}\` or add --create-group; \`stor group list\` shows the groups`,
    });
  }
  const id = await call(t, 'group.create', [{ name, smb: false }]);
  return { payload: { group: id }, createdId: id };
}

export async function userCreate(
  ctx: CommandContext,
  username: string,
  opts: UserCreateOptions,
): Promise<CommandResult<UserCreated>> {
  if (!opts.passwordStdin && !opts.passwordDisabled) {
    throw new StorError(E.NO_PASSWORD, `no password given for ${username}`, {
      hint: 'pipe one to --password-stdin (first line), or pass --password-disabled for a user that logs in with API keys only',
    });
  }
  const password = opts.passwordStdin ? await readNewPassword(ctx) : null;
  const t = await ctx.transport();
  const [existing] = await listUsers(t, [['username', '=', username]]);
  if (existing && opts.existOk) {
    const data = { ...(await userSummary(t, existing.id)), created: false, group_created: false };
    ctx.note(`user ${username} exists (uid ${data.uid}); nothing was changed`);
    return { data, view: userRecord(data, `User ${username} exists; nothing was changed`) };
  }
  const groupIds = groupIdsIn(await listGroups(t), opts.groups ?? []);
  // An existing user: no group is made; user.create itself refuses the name.
  const primary = existing
    ? { payload: { group_create: true } as const, createdId: null }
    : await primaryGroup(t, username, opts.group ?? username, opts.createGroup === true);
  let created;
  try {
    created = await call(t, 'user.create', [
      {
        username,
        full_name: opts.fullName ?? username,
        ...primary.payload,
        groups: groupIds,
        ...(password !== null ? { password } : { password_disabled: true, smb: false }),
        ...(opts.shell !== undefined ? { shell: opts.shell } : {}),
        ...(opts.home !== undefined ? { home: opts.home } : {}),
      },
    ]);
  } catch (err) {
    if (primary.createdId !== null)
      await call(t, 'group.delete', [primary.createdId, { delete_users: false }]).catch(() => undefined);
    // The appliance's "already exists" names no way out; a re-run script wants the flag.
    if (existing && err instanceof RpcError)
      err.hint = `user ${username} exists (uid ${existing.uid}); \`--exist-ok\` exits 0 when it does (for re-run scripts)`;
    await hintValidShells(t, err, [...('group' in primary.payload ? [primary.payload.group] : []), ...groupIds]);
    throw err;
  }
  const groupCreated = primary.createdId !== null || 'group_create' in primary.payload;
  const data = { ...(await userSummary(t, created.id)), created: true, group_created: groupCreated };
  const group = `${groupCreated ? 'new' : 'existing'} group ${data.group}`;
  return { data, view: userRecord(data, `Created user ${username} (uid ${data.uid}) in ${group}`) };
}

export const userCreateCommand = defineCommand({
  summary: 'create a local user; the password comes from standard input, never the command line',
  effect: 'change',
  calls: ['user.create', 'user.query', 'group.query'],
  args: { username: arg.required('username') },
  options,
  examples: [
    "printf '%s\\n' \"$PASSWORD\" | stor user create alice --group ops --full-name 'Alice A' --password-stdin",
    'stor user create backup --group ops --password-disabled --exist-ok --json',
  ],
  notes:
    'The uid is chosen by the appliance. One of --password-stdin and --password-disabled is required, as the appliance requires a password unless password login is disabled.',
  fanOut: 'change',
  checkTargets: (_args, opts) => {
    if (opts.passwordStdin) refuseStdinForTargets('--password-stdin');
  },
  run: (ctx, { username }, opts) => userCreate(ctx, username, opts),
});
