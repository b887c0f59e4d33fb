import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { checkRoles, editOptions, resolveGids, saved, type PrivilegeEditOptions, type PrivilegeSaved } from './edit.js';
import { loadTargetRoles } from './model.js';
import { arg, defineCommand, flag } from '../shared/declare.js';

export async function privilegeCreate(ctx: CommandContext, name: string, options: PrivilegeEditOptions): Promise<CommandResult<PrivilegeSaved>> {
  const t = await ctx.transport();
  const target = await loadTargetRoles(t);
  const roles = options.roles ?? [];
  checkRoles(ctx, target, roles, options.force);
  const local_groups = await resolveGids(t, options.groups ?? []);
  const p = await call(t, 'privilege.create', [{ name, local_groups, roles, web_shell: options.webShell ?? false }]);
  return saved(p, target);
}

export const privilegeCreateCommand = defineCommand({
  summary: 'create a privilege; refuses a role list that would lock its users out unless --force',
  effect: 'change',
  args: { name: arg.required('privilege name') },
  options: { ...editOptions, webShell: flag('grant the web shell') },
  examples: ['stor privilege create ops --groups ops --roles FILESYSTEM_FULL_CONTROL,DATASET_WRITE'],
  fanOut: 'change',
  run: (ctx, { name }, opts) => privilegeCreate(ctx, name, opts),
});
