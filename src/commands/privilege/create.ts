import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { checkRoles, resolveGids, saved, splitList, type PrivilegeEditOptions, type PrivilegeSaved } from './edit.js';
import { loadTargetRoles } from './model.js';

export async function privilegeCreate(ctx: CommandContext, name: string, options: PrivilegeEditOptions): Promise<CommandResult<PrivilegeSaved>> {
  const t = await ctx.transport();
  const target = await loadTargetRoles(t);
  const roles = splitList(options.roles) ?? [];
  checkRoles(ctx, target, roles, options.force);
  const local_groups = await resolveGids(t, splitList(options.groups) ?? []);
  const p = await call(t, 'privilege.create', [{ name, local_groups, roles, web_shell: options.webShell ?? false }]);
  return saved(p, target);
}
