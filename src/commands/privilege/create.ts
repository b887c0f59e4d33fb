import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import type { CommandResult } from '../output/render.js';
import { checkRoles, editOptions, resolveGids, saved, type PrivilegeEditOptions, type PrivilegeSaved } from './edit.js';
import { listPrivileges, loadTargetRoles, type Privilege } from './model.js';
import { arg, defineCommand, flag } from '../framework/declare.js';

/** `stor privilege create --json` */
export interface PrivilegeCreated extends PrivilegeSaved {
  /** False when the privilege existed and `--exist-ok` left it as it was. */
  created: boolean;
  /** With `--exist-ok`, what the existing privilege has otherwise than asked (`groups`, `roles`, `web_shell`); empty when it matches. */
  differs: string[];
}

type PrivilegeCreateOptions = PrivilegeEditOptions & { existOk?: boolean };

const sameSet = (a: readonly (string | number)[], b: readonly (string | number)[]) => {
  const sorted = (l: readonly (string | number)[]) => JSON.stringify([...new Set(l)].map(String).sort());
  return sorted(a) === sorted(b);
};

/** What an existing privilege has otherwise than a create would have given it. */
function differences(p: Privilege, want: { gids: number[]; roles: string[]; webShell: boolean }): string[] {
  const gids = p.local_groups.map((g) => g.gid).filter((g): g is number => typeof g === 'number');
  return [
    ...(sameSet(gids, want.gids) ? [] : ['groups']),
    ...(sameSet(p.roles, want.roles) ? [] : ['roles']),
    ...(p.web_shell === want.webShell ? [] : ['web_shell']),
  ];
}

export async function privilegeCreate(
  ctx: CommandContext,
  name: string,
  options: PrivilegeCreateOptions,
): Promise<CommandResult<PrivilegeCreated>> {
  const t = await ctx.transport();
  const target = await loadTargetRoles(t);
  const roles = options.roles ?? [];
  checkRoles(ctx, target, roles, options.force);
  const local_groups = await resolveGids(t, options.groups ?? []);
  const web_shell = options.webShell ?? false;
  // As `group create --exist-ok` and `user create --exist-ok`: read, and leave what is there as it is.
  const existing = options.existOk ? (await listPrivileges(t)).find((p) => p.name === name) : undefined;
  if (existing) {
    const differs = differences(existing, { gids: local_groups, roles, webShell: web_shell });
    const result = saved(existing, target);
    if (differs.length > 0) {
      ctx.warn(
        `stor: privilege ${name} exists with other ${differs.join(', ')} than asked; nothing was changed (\`stor privilege update ${name}\` changes it)`,
      );
    } else {
      ctx.note(`stor: privilege ${name} exists as asked (id ${existing.id}); nothing was changed`);
    }
    return { ...result, data: { ...result.data, created: false, differs } };
  }
  const p = await call(t, 'privilege.create', [{ name, local_groups, roles, web_shell }]);
  const result = saved(p, target);
  return { ...result, data: { ...result.data, created: true, differs: [] } };
}

export const privilegeCreateCommand = defineCommand({
  summary:
    'create a privilege; refuses a role list that would lock its users out unless --force; --exist-ok makes it safe to re-run',
  effect: 'change',
  calls: ['privilege.create', 'privilege.roles', 'group.query'],
  args: { name: arg.required('privilege name') },
  options: {
    ...editOptions,
    webShell: flag('grant the web shell'),
    existOk: flag(
      'exit 0 when a privilege of that name exists, changing nothing (for re-run scripts); warns when it differs from what was asked',
    ),
  },
  examples: [
    'stor privilege create ops --groups ops --roles FILESYSTEM_FULL_CONTROL,DATASET_WRITE',
    'stor privilege create ops --groups ops --roles READONLY_ADMIN --exist-ok --json',
  ],
  fanOut: 'change',
  run: (ctx, { name }, opts) => privilegeCreate(ctx, name, opts),
});
