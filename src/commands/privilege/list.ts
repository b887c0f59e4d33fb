import type { CommandContext } from '../framework/context.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { groupNames, healthOf, listPrivileges, loadTargetRoles } from './model.js';
import { defineCommand } from '../framework/declare.js';
import { healthCell } from './tones.js';

/** One row of `stor privilege list --json`. */
export interface PrivilegeSummary {
  id: number;
  name: string;
  builtin_name: string | null;
  groups: string[];
  roles: string[];
  web_shell: boolean;
  /** `ok`, or the problems found: `overlap`, `self-including`, `unknown role`. */
  health: string[];
  /** True when this target refuses login to every user bound to it. */
  locks_out: boolean;
}

export async function privilegeList(ctx: CommandContext): Promise<CommandResult<PrivilegeSummary[]>> {
  const t = await ctx.transport();
  const [roles, privileges] = await Promise.all([loadTargetRoles(t), listPrivileges(t)]);
  const data = privileges.map((p) => {
    const h = healthOf(roles, p.roles);
    return {
      id: p.id,
      name: p.name,
      builtin_name: p.builtin_name,
      groups: groupNames(p),
      roles: p.roles,
      web_shell: p.web_shell,
      health: h.labels,
      locks_out: h.locksOut,
    };
  });
  if (data.some((p) => p.health[0] !== 'ok')) ctx.noteOnce(`health judged as ${roles.model.basis}`);
  return tableResult(data, {
    columns: [
      { header: 'id', key: true },
      { header: 'name', key: true },
      { header: 'groups', overflow: 'wrap' },
      { header: 'roles', overflow: 'wrap' },
      { header: 'web shell', minor: true },
      { header: 'health', overflow: 'wrap' },
    ],
    // ", " between roles so that a long list wraps at word boundaries on a terminal.
    rows: data.map((p) => [
      p.id,
      p.name,
      p.groups.join(', '),
      p.roles.join(', '),
      p.web_shell,
      healthCell(p.health, p.locks_out),
    ]),
    empty: 'No privileges.',
  });
}

export const privilegeListCommand = defineCommand({
  summary: 'list privileges with their groups, roles and health (ok, overlap, self-including, unknown role)',
  effect: 'read',
  calls: ['privilege.query', 'privilege.roles'],
  fanOut: 'read',
  examples: ['stor privilege list', "stor privilege list --json | jq '.[] | select(.locks_out)'"],
  run: (ctx) => privilegeList(ctx),
});
