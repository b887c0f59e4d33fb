import { call } from '../../core/contract/client.js';
import { userContract } from '../../core/contract/user.js';
import { userDeleteRefusal } from '../../core/refusals/accounts.js';
import { predictedDenial } from '../shared/predict-access.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, ignoreNotFoundFlag, type OptionValues, yesFlag } from '../framework/declare.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { listGroups } from '../group/model.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { findUser, primaryGroupName } from './model.js';

const options = {
  deleteGroup: flag('also delete its primary group when no other user is in it (25.10.1 delete_group)'),
  yes: yesFlag(),
  ignoreNotFound: ignoreNotFoundFlag(),
};

type UserDeleteOptions = OptionValues<typeof options>;

/** `stor user delete --json` */
export interface UserDeleted {
  id: number;
  uid: number;
  username: string;
  group: string | null;
  /** Whether the primary group is gone afterwards (only ever with `--delete-group`). */
  group_deleted: boolean;
}

export async function userDelete(
  ctx: CommandContext,
  ref: string,
  opts: UserDeleteOptions,
): Promise<CommandResult<UserDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(opts.ignoreNotFound, () => findUser(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const user = lookup.found;
  const group = primaryGroupName(user);
  // Built-in and immutable users are refused by the appliance (MW/plugins/account.py:1046-1057,
  // in that order after the dispatcher's role check). Predicted from reads and said in its words
  // before anyone is asked: calling the delete to hear the refusal would be a change before consent.
  if (user.builtin || user.immutable) {
    const denied = await predictedDenial(t, userContract['user.delete'].access);
    if (denied) throw denied;
    if ((await call(t, 'auth.me')).pw_name === user.username) throw userDeleteRefusal.activeUser();
    throw user.builtin ? userDeleteRefusal.builtin() : userDeleteRefusal.immutable();
  }
  const also = opts.deleteGroup && group ? ` and its primary group ${group} if no one else is in it` : '';
  await confirmChange(ctx, `Delete user ${user.username} (uid ${user.uid})${also}?`, opts.yes);
  // Sent always: the appliance's own default is to delete the group, stor's is to keep it.
  await call(t, 'user.delete', [user.id, { delete_group: opts.deleteGroup }]);
  const groupGone = group !== null && (await listGroups(t, [['name', '=', group]])).length === 0;
  const data: UserDeleted = { id: user.id, uid: user.uid, username: user.username, group, group_deleted: groupGone };
  const fields: [string, string | number | null][] = [
    ['uid', user.uid],
    ['group', group ? `${group}${groupGone ? ' (deleted)' : ' (kept)'}` : null],
  ];
  return recordResult(data, { heading: `Deleted user ${user.username}`, fields });
}

export const userDeleteCommand = defineCommand({
  summary: 'delete a local user (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['user.delete', 'user.query', 'group.query'],
  asks: true,
  args: { user: arg.required('username (or uid)') },
  options,
  examples: [
    'stor user delete alice',
    'stor user delete alice --delete-group --yes --json',
    'stor user delete alice --yes --ignore-not-found',
  ],
  notes: "Unlike the appliance's default, the primary group stays unless --delete-group is given.",
  fanOut: 'change',
  run: (ctx, { user }, opts) => userDelete(ctx, user, opts),
});
