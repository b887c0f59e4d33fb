import { call } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { CommandContext } from '../framework/context.js';
import type { CommandResult } from '../output/render.js';
import { checkRoles, editOptions, resolveGids, saved, type PrivilegeEditOptions, type PrivilegeSaved } from './edit.js';
import { findPrivilege, loadTargetRoles } from './model.js';
import { arg, defineCommand, toggle, value } from '../framework/declare.js';

export async function privilegeUpdate(
  ctx: CommandContext,
  ref: string,
  options: PrivilegeEditOptions,
): Promise<CommandResult<PrivilegeSaved>> {
  const t = await ctx.transport();
  const [existing, target] = await Promise.all([findPrivilege(t, ref), loadTargetRoles(t)]);
  const change: Record<string, unknown> = {};
  if (options.name !== undefined) change.name = options.name;
  const roles = options.roles;
  if (roles !== undefined) {
    checkRoles(ctx, target, roles, options.force);
    change.roles = roles;
  }
  const groups = options.groups;
  if (groups !== undefined) change.local_groups = await resolveGids(t, groups);
  if (options.webShell !== undefined) change.web_shell = options.webShell;
  if (Object.keys(change).length === 0)
    throw new StorError(
      E.NOTHING_TO_UPDATE,
      'say what to change: --name, --groups, --roles or --web-shell/--no-web-shell',
    );
  const p = await call(t, 'privilege.update', [existing.id, change]);
  return saved(p, target);
}

export const privilegeUpdateCommand = defineCommand({
  summary: 'change a privilege; --groups and --roles replace the lists',
  effect: 'change',
  calls: ['privilege.update', 'privilege.query', 'privilege.roles', 'group.query'],
  args: { privilege: arg.required('id or name', 'privilege') },
  options: {
    name: value('<name>', 'rename it'),
    ...editOptions,
    webShell: toggle('grant the web shell', 'revoke the web shell'),
  },
  examples: [
    'stor privilege update ops --roles FILESYSTEM_FULL_CONTROL,DATASET_WRITE',
    'stor privilege update 4 --no-web-shell',
  ],
  fanOut: 'change',
  run: (ctx, { privilege }, opts) => privilegeUpdate(ctx, privilege, opts),
});
