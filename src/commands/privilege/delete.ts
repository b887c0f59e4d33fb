import { call } from '../../core/contract/client.js';
import { privilegeContract } from '../../core/contract/privilege.js';
import { privilegeDeleteRefusal } from '../../core/refusals/accounts.js';
import { predictedDenial } from '../shared/predict-access.js';
import type { CommandContext } from '../framework/context.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { findPrivilege, groupNames } from './model.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { arg, defineCommand, ignoreNotFoundFlag, yesFlag } from '../framework/declare.js';

/** `stor privilege delete --json` */
export interface PrivilegeDeleted {
  id: number;
  name: string;
  groups: string[];
  roles: string[];
  deleted: true;
}

export async function privilegeDelete(
  ctx: CommandContext,
  ref: string,
  yes: boolean,
  ignoreNotFound = false,
): Promise<CommandResult<PrivilegeDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(ignoreNotFound, () => findPrivilege(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const p = lookup.found;
  // A built-in privilege: the appliance refuses it (EPERM, MW/plugins/account_/privilege.py:163-164),
  // after the dispatcher's role check. Said in its words before anyone is asked anything, but
  // predicted from reads: calling the delete to hear the refusal would be a change before consent.
  if (p.builtin_name)
    throw (await predictedDenial(t, privilegeContract['privilege.delete'].access)) ?? privilegeDeleteRefusal.builtin();
  const groups = groupNames(p);
  const asked = await confirmChange(
    ctx,
    `Delete privilege ${p.id} "${p.name}"? Members of ${groups.join(', ') || 'no group'} lose ${p.roles.join(', ') || 'no roles'} through it.`,
    yes,
  );
  // A group bound or a role added while the question waited would be lost too, unnamed: hold to the plan.
  const items = (q: typeof p) => [...groupNames(q).map((g) => `group ${g}`), ...q.roles.map((r) => `role ${r}`)];
  await holdToPlan(ctx, {
    shown: items(p),
    pick: (plan: PrivilegeDeleted) => [...plan.groups.map((g) => `group ${g}`), ...plan.roles.map((r) => `role ${r}`)],
    asked,
    reread: async () => items(await findPrivilege(t, String(p.id))),
    what: `deleting privilege ${p.id} would now also take`,
    preview: `stor privilege show ${p.id}`,
  });
  await call(t, 'privilege.delete', [p.id]);
  const data: PrivilegeDeleted = { id: p.id, name: p.name, groups, roles: p.roles, deleted: true };
  return recordResult(data, {
    fields: [
      ['id', p.id],
      ['name', p.name],
      ['groups', groups],
      ['roles', p.roles],
      ['deleted', true],
    ],
  });
}

export const privilegeDeleteCommand = defineCommand({
  summary:
    'delete a privilege (asks first; --yes when not on a terminal); built-in ones are refused as the appliance does',
  effect: 'change',
  calls: ['privilege.delete', 'privilege.query'],
  asks: true,
  args: { privilege: arg.required('id or name', 'privilege') },
  options: { yes: yesFlag(), ignoreNotFound: ignoreNotFoundFlag() },
  examples: [
    'stor privilege delete ops',
    'stor privilege delete 4 --yes --json',
    'stor privilege delete ops --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { privilege }, opts) => privilegeDelete(ctx, privilege, opts.yes, opts.ignoreNotFound),
});
