import type { CommandContext } from '../shared/context.js';
import { EXIT } from '../shared/exit-codes.js';
import type { CommandResult } from '../shared/render.js';
import { groupNames, healthOf, listPrivileges, loadCatalogue, type FindingReport } from './model.js';

/** `stor privilege check --json` */
export interface PrivilegeCheckResult {
  /** True when no privilege would lock its users out. */
  ok: boolean;
  /** Which role catalogue the check used. */
  catalogue: string;
  privileges: {
    id: number;
    name: string;
    groups: string[];
    roles: string[];
    locks_out: boolean;
    findings: FindingReport[];
    /** The smallest list with the same effective roles. */
    suggested_roles: string[];
  }[];
}

/** `stor privilege check`: every finding; exit 6 when some privilege breaks login. */
export async function privilegeCheck(ctx: CommandContext): Promise<CommandResult<PrivilegeCheckResult>> {
  const t = await ctx.transport();
  const [{ catalogue, source }, privileges] = await Promise.all([loadCatalogue(t), listPrivileges(t)]);
  const flagged = privileges
    .map((p) => ({ p, h: healthOf(catalogue, p.roles) }))
    .filter(({ h }) => h.findings.length > 0)
    .map(({ p, h }) => ({
      id: p.id,
      name: p.name,
      groups: groupNames(p),
      roles: p.roles,
      locks_out: h.locksOut,
      findings: h.findings,
      suggested_roles: h.minimal,
    }));
  const data: PrivilegeCheckResult = { ok: !flagged.some((p) => p.locks_out), catalogue: source, privileges: flagged };
  const lines: string[] = [];
  for (const p of flagged) {
    lines.push(`${p.locks_out ? 'LOCKOUT' : 'warning'}: privilege ${p.id} "${p.name}" (groups: ${p.groups.join(', ') || '-'})`);
    for (const f of p.findings) lines.push(`  [${f.index}] ${f.effect}`, `      fix: ${f.remedy}`);
    lines.push(`  run: stor privilege fix ${p.id}`);
  }
  const broken = flagged.filter((p) => p.locks_out).length;
  lines.push(
    broken > 0
      ? `${broken} of ${privileges.length} privileges lock their users out on 25.10.1 (catalogue: ${source}).`
      : `No privilege locks its users out (${privileges.length} checked, catalogue: ${source}).`,
  );
  return { data, view: { kind: 'lines', lines }, exitCode: broken > 0 ? EXIT.CHECK : EXIT.OK };
}
