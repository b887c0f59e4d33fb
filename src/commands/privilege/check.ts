import type { CommandContext } from '../framework/context.js';
import { EXIT } from '../output/exit-codes.js';
import { type CommandResult, tableResult, toned } from '../output/render.js';
import {
  groupNames,
  healthOf,
  listPrivileges,
  loadTargetRoles,
  modelJson,
  proposedFix,
  type FindingReport,
} from './model.js';
import { defineCommand } from '../framework/declare.js';

/** `stor privilege check --json` */
export interface PrivilegeCheckResult {
  /** True when no privilege locks its users out on this target. */
  ok: boolean;
  /** Which role catalogue the check used. */
  catalogue: string;
  /** What locks users out on this target, and how stor decided it. */
  model: ReturnType<typeof modelJson>;
  privileges: {
    id: number;
    name: string;
    groups: string[];
    roles: string[];
    locks_out: boolean;
    findings: FindingReport[];
    /**
     * What `stor privilege fix` writes with the options the findings call for (the `next:` line on
     * stderr names them): the smallest list with the same effective roles, unknown names dropped,
     * and self-including roles too where one locks users out (which changes the effective roles).
     */
    suggested_roles: string[];
  }[];
}

/** `stor privilege check`: every finding; exit 6 when some privilege breaks login on this target. */
export async function privilegeCheck(ctx: CommandContext): Promise<CommandResult<PrivilegeCheckResult>> {
  const t = await ctx.transport();
  const [roles, privileges] = await Promise.all([loadTargetRoles(t), listPrivileges(t)]);
  const proposed = privileges
    .map((p) => ({ p, h: healthOf(roles, p.roles) }))
    .filter(({ h }) => h.findings.length > 0)
    .map(({ p, h }) => ({ p, h, fix: proposedFix(h) }));
  const flagged = proposed.map(({ p, h, fix }) => ({
    id: p.id,
    name: p.name,
    groups: groupNames(p),
    roles: p.roles,
    locks_out: h.locksOut,
    findings: h.findings,
    suggested_roles: fix.after,
  }));
  const data: PrivilegeCheckResult = {
    ok: !flagged.some((p) => p.locks_out),
    catalogue: roles.source,
    model: modelJson(roles),
    privileges: flagged,
  };
  const broken = flagged.filter((p) => p.locks_out).length;
  const warned = flagged.length - broken;
  const warnings = warned > 0 ? `; ${warned} with warnings only` : '';
  // What explains the table, and what to run next, is for the operator: stderr.
  ctx.noteOnce(`judged as ${roles.model.basis} (catalogue: ${roles.source})`);
  // Below the table the ids refer to.
  for (const { p, fix } of proposed) ctx.noteAfter(`next: stor privilege fix ${p.id}${fix.flags}`);
  ctx.note(
    broken > 0
      ? `${broken} of ${privileges.length} privileges lock their users out on ${roles.model.name}${warnings}`
      : `no privilege locks its users out on ${roles.model.name} (${privileges.length} checked${warnings})`,
  );
  return {
    ...tableResult(data, {
      columns: ['id', 'name', 'severity', { header: 'finding', overflow: 'wrap' }, { header: 'fix', overflow: 'wrap' }],
      rows: flagged.flatMap((p) =>
        p.findings.map((f) => [
          p.id,
          p.name,
          toned(f.locks_out ? 'LOCKOUT' : 'warning', f.locks_out ? 'danger' : 'warning'),
          `[${f.index}] ${f.effect}`,
          f.remedy,
        ]),
      ),
      empty: 'No findings.',
    }),
    exitCode: broken > 0 ? EXIT.CHECK : EXIT.OK,
  };
}

export const privilegeCheckCommand = defineCommand({
  summary: 'find privileges that break or may break login; exit 6 if any locks its users out',
  effect: 'read',
  fanOut: 'read',
  findings: 'lockout',
  examples: ['stor privilege check', 'stor privilege check --json || echo "some privilege locks users out"'],
  run: (ctx) => privilegeCheck(ctx),
});
