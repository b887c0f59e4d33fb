import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, list, value, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { findGroup, groupRecord, groupSummary, userIdsFor, type GroupSummary } from './model.js';

const options = {
  name: value('<name>', 'rename the group'),
  members: list('<users>', 'the members, by name: replaces the list (an empty value `--members ""` empties it)'),
};

type GroupUpdateOptions = OptionValues<typeof options>;

/** `stor group update --json` */
export interface GroupUpdated extends GroupSummary {
  /** The fields sent, as group.update names them. */
  changed: string[];
}

export async function groupUpdate(
  ctx: CommandContext,
  ref: string,
  opts: GroupUpdateOptions,
): Promise<CommandResult<GroupUpdated>> {
  if (opts.name === undefined && opts.members === undefined) {
    throw new StorError(E.NOTHING_TO_UPDATE, 'nothing to change', { hint: 'pass --name or --members' });
  }
  const t = await ctx.transport();
  const group = await findGroup(t, ref);
  const update = {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.members !== undefined ? { users: await userIdsFor(t, opts.members) } : {}),
  };
  await call(t, 'group.update', [group.id, update]);
  const data = { ...(await groupSummary(t, group.id)), changed: Object.keys(update) };
  return { data, view: groupRecord(data, `Updated group ${data.name} (${data.changed.join(', ')})`) };
}

export const groupUpdateCommand = defineCommand({
  summary: 'rename a local group or replace its members',
  effect: 'change',
  calls: ['group.update', 'group.query', 'user.query', 'privilege.query'],
  args: { group: arg.required('group name (or gid)') },
  options,
  examples: ['stor group update ops --members alice,carol', 'stor group update ops --name operators'],
  fanOut: 'change',
  run: (ctx, { group }, opts) => groupUpdate(ctx, group, opts),
});
