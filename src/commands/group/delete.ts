import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { ERRNO, isRoleDenial, RpcError, StorError } from '../../core/errors.js';
import { groupContract } from '../../core/contract/group.js';
import { groupDeleteRefusal } from '../../core/refusals/accounts.js';
import { predictedDenial } from '../shared/predict-access.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, ignoreNotFoundFlag, type OptionValues, yesFlag } from '../framework/declare.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { findGroup, groupSummary } from './model.js';

const options = {
  deleteUsers: flag('also delete the users whose primary group this is (otherwise they move to nogroup)'),
  yes: yesFlag(),
  ignoreNotFound: ignoreNotFoundFlag(),
};

type GroupDeleteOptions = OptionValues<typeof options>;

/** `stor group delete --json` */
export interface GroupDeleted {
  id: number;
  gid: number;
  name: string;
  /** Its members before the delete, by name. */
  members: string[];
  delete_users: boolean;
}

export async function groupDelete(
  ctx: CommandContext,
  ref: string,
  opts: GroupDeleteOptions,
): Promise<CommandResult<GroupDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(opts.ignoreNotFound, () => findGroup(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const group = lookup.found;
  const summary = await groupSummary(t, group.id);
  const data: GroupDeleted = {
    id: group.id,
    gid: group.gid,
    name: group.name,
    members: summary.members,
    delete_users: opts.deleteUsers,
  };
  // A built-in group is refused by the appliance (MW/plugins/account.py:2159-2160, after the
  // dispatcher's role check). Predicted from reads and said in its words before anyone is asked:
  // calling the delete to hear the refusal would be a change before consent. Its EACCES is no
  // missing role: said as BUILTIN_GROUP (exit 1), not as a denial (exit 5).
  if (group.builtin)
    throw (
      (await predictedDenial(t, groupContract['group.delete'].access)) ?? builtinGroup(groupDeleteRefusal.builtin())
    );
  // A group a privilege uses is refused too (MW/plugins/account_/privilege.py:323-331), with the
  // EACCES of a role denial though it is none: said as GROUP_IN_USE (exit 1), from reads when the
  // identity may read privileges, else from the appliance's refusal below.
  const user = summary.privileges?.[0];
  if (user !== undefined)
    throw groupInUse(
      `This group is used by privilege '${user}'. Please remove it from that privilege first, then delete the group.`,
      user,
    );
  const who =
    summary.members.length > 0
      ? ` (members: ${summary.members.join(', ')}${opts.deleteUsers ? ', whose primary group it is, are deleted too' : ''})`
      : '';
  const asked = await confirmChange(ctx, `Delete group ${group.name} (gid ${group.gid})${who}?`, opts.yes);
  // A member who joined while the question waited would lose the group, or with --delete-users
  // be deleted, unnamed: hold to the plan.
  await holdToPlan(ctx, {
    shown: summary.members,
    pick: (plan: GroupDeleted) => plan.members,
    asked,
    reread: async () => (await groupSummary(t, group.id)).members,
    what: `deleting group ${group.name} would now also take member`,
    preview: `stor group show ${group.name}`,
  });
  try {
    await call(t, 'group.delete', [group.id, { delete_users: opts.deleteUsers }]);
  } catch (err) {
    if (!(err instanceof RpcError) || err.errno !== ERRNO.EACCES || isRoleDenial(err)) throw err;
    const used = /used by privilege '(.*)'\./.exec(err.reason);
    if (used) throw groupInUse(err.reason.replace(/^\[EACCES\]\s*/, ''), used[1]!);
    throw err.reason.includes('A built-in group cannot be deleted.') ? builtinGroup(err) : err;
  }
  return recordResult(data, {
    heading: `Deleted group ${group.name}`,
    fields: [
      ['gid', group.gid],
      ['members', summary.members],
    ],
  });
}

/** The appliance's refusal of a built-in group, in its words without the errno that would read as a missing role. */
function builtinGroup(refusal: RpcError): StorError {
  return new StorError(E.BUILTIN_GROUP, refusal.reason.replace(/^\[EACCES\]\s*/, ''), {
    hint: "built-in groups are the appliance's own and stay; `stor group list` marks them",
  });
}

function groupInUse(message: string, privilege: string): StorError {
  return new StorError(E.GROUP_IN_USE, message, {
    hint: `take the group out of it first: \`stor privilege show ${privilege}\` lists its groups, \`stor privilege update ${privilege} --groups ...\` replaces them`,
  });
}

export const groupDeleteCommand = defineCommand({
  summary: 'delete a local group (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['group.delete', 'group.query', 'user.query', 'privilege.query'],
  asks: true,
  args: { group: arg.required('group name (or gid)') },
  options,
  examples: [
    'stor group delete ops',
    'stor group delete ops --yes --json',
    'stor group delete ops --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { group }, opts) => groupDelete(ctx, group, opts),
});
