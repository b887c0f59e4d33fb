import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { type Cell, type CommandResult, recordResult } from '../output/render.js';
import { findPrivilege, groupNames, healthOf, loadTargetRoles, modelJson, type FindingReport } from './model.js';
import { arg, defineCommand } from '../framework/declare.js';
import { findingCell, healthCell } from './tones.js';

/** `stor privilege show --json` */
export interface PrivilegeDetail {
  id: number;
  name: string;
  builtin_name: string | null;
  groups: { gid: number | null; name: string }[];
  web_shell: boolean;
  listed_roles: string[];
  effective_roles: string[];
  /** Users whose primary or supplementary groups include one of the privilege's groups. */
  members: string[];
  health: string[];
  locks_out: boolean;
  findings: FindingReport[];
  catalogue: string;
  /** What locks users out on this target, and how stor decided it. */
  model: ReturnType<typeof modelJson>;
}

export async function privilegeShow(ctx: CommandContext, ref: string): Promise<CommandResult<PrivilegeDetail>> {
  const t = await ctx.transport();
  const [roles, p] = await Promise.all([loadTargetRoles(t), findPrivilege(t, ref)]);
  const h = healthOf(roles, p.roles);
  const gids = new Set(p.local_groups.map((g) => g.gid));
  const [users, groups] = await Promise.all([
    queryItems(t, 'user.query', ['username', 'group', 'groups'], [], { select: ['username', 'group', 'groups'] }),
    queryItems(t, 'group.query', ['id', 'gid'], [], { select: ['id', 'gid'] }),
  ]);
  const gidOfId = new Map(groups.map((g) => [g.id, g.gid]));
  // `group` is the primary group's raw row; synthetic accounts have `{}` there.
  const primaryGid = (group: Record<string, unknown>) => (typeof group.bsdgrp_gid === 'number' ? group.bsdgrp_gid : -1);
  const members = users
    .filter((u) => gids.has(primaryGid(u.group)) || u.groups.some((id) => gids.has(gidOfId.get(id) ?? -1)))
    .map((u) => u.username);
  const names = groupNames(p);
  const data: PrivilegeDetail = {
    id: p.id,
    name: p.name,
    builtin_name: p.builtin_name,
    groups: p.local_groups.map((g, i) => ({ gid: g.gid, name: names[i]! })),
    web_shell: p.web_shell,
    listed_roles: p.roles,
    effective_roles: [...h.effective].sort(),
    members,
    health: h.labels,
    locks_out: h.locksOut,
    findings: h.findings,
    catalogue: roles.source,
    model: modelJson(roles),
  };
  return recordResult(data, {
    // Health and findings first: the role lists below can be long.
    fields: [
      ['privilege', `${p.id} ${p.name}`],
      ...(p.builtin_name ? [['built-in', p.builtin_name] as [string, Cell]] : []),
      ['health', healthCell(h.labels, h.locksOut)],
      ...h.findings.map((f): [string, Cell] => [`finding ${f.index}`, findingCell(f)]),
      ['judged as', roles.model.basis],
      ['groups', data.groups.map((g) => `${g.name} (${g.gid})`)],
      ['members', members],
      ['web shell', p.web_shell],
      ['listed roles', p.roles],
    ],
    list: { label: 'effective roles', items: data.effective_roles },
  });
}

export const privilegeShowCommand = defineCommand({
  summary: 'one privilege: listed and effective roles, members, findings',
  effect: 'read',
  calls: ['privilege.query', 'privilege.roles', 'user.query', 'group.query'],
  fanOut: 'read',
  args: { privilege: arg.required('id or name', 'privilege') },
  examples: ['stor privilege show ops', 'stor privilege show 4 --json'],
  run: (ctx, { privilege }) => privilegeShow(ctx, privilege),
});
