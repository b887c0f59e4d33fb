import { queryItems } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { groupNames, healthOf, type FindingReport, type Privilege, type TargetRoles } from './model.js';
import { flag, list, type OptionValues } from '../framework/declare.js';
import { healthCell } from './tones.js';

/** The options `privilege create` and `privilege update` share. */
export const editOptions = {
  groups: list('<groups>', 'local groups by name or gid, comma-separated (repeatable)'),
  roles: list('<roles>', 'role names, comma-separated (repeatable)'),
  force: flag('save an overlapping or self-including role list anyway'),
};

export type PrivilegeEditOptions = OptionValues<typeof editOptions> & {
  name?: string | undefined;
  webShell?: boolean | undefined;
};

/** `stor privilege create|update --json`: the privilege as stored. */
export interface PrivilegeSaved {
  id: number;
  name: string;
  groups: string[];
  roles: string[];
  web_shell: boolean;
  health: string[];
}

export async function resolveGids(t: Transport, refs: string[]): Promise<number[]> {
  const groups = await queryItems(t, 'group.query', ['gid', 'name'], [], { select: ['gid', 'name'] });
  return refs.map((ref) => {
    const g = /^\d+$/.test(ref) ? groups.find((x) => x.gid === Number(ref)) : groups.find((x) => x.name === ref);
    if (!g)
      throw new StorError(E.NOT_FOUND, `no local group with name or gid ${JSON.stringify(ref)}`, {
        hint: '`stor group list` shows them',
      });
    return g.gid;
  });
}

/** One finding as create, update and suggest say it: `[index] effect`. */
export const findingLine = (f: FindingReport): string => `[${f.index}] ${f.effect}`;

/**
 * Refuses, before sending, a role list that would lock its users out on this target, unless
 * --force; what only makes it redundant is saved, with a warning.
 */
export function checkRoles(ctx: CommandContext, roles: TargetRoles, list: string[], force: boolean | undefined): void {
  const h = healthOf(roles, list);
  const unknown = h.findings.filter((f) => f.kind === 'unknown');
  if (unknown.length > 0) {
    throw new StorError(E.UNKNOWN_ROLE, `not a role of this appliance: ${unknown.map((f) => f.role).join(', ')}`, {
      hint: '`stor call privilege.roles` lists them',
    });
  }
  const why = (findings: typeof h.findings) => findings.map(findingLine).join('; ');
  if (h.locksOut && !force) {
    const remedies = [...new Set(h.findings.filter((f) => f.locks_out).map((f) => f.remedy))].join('; ');
    throw new StorError(
      E.ROLE_LIST_LOCKS_OUT,
      `this role list would lock its users out on ${roles.model.name}: ${why(h.findings.filter((f) => f.locks_out))}`,
      {
        hint: `${remedies}; or --force to save it anyway`,
      },
    );
  }
  const redundant = h.findings.filter((f) => !f.locks_out);
  if (redundant.length > 0) {
    ctx.warn(`stor: warning: ${why(redundant)}; the smallest equivalent list is ${h.fix().after.join(',')}`);
  }
}

export function saved(p: Privilege, roles: TargetRoles): CommandResult<PrivilegeSaved> {
  const h = healthOf(roles, p.roles);
  const health = h.locksOut ? [...h.labels, 'LOCKOUT'] : h.labels;
  const data = { id: p.id, name: p.name, groups: groupNames(p), roles: p.roles, web_shell: p.web_shell, health };
  return recordResult(data, {
    fields: [
      ['id', data.id],
      ['name', data.name],
      ['groups', data.groups],
      ['roles', data.roles],
      ['web shell', data.web_shell],
      ['health', healthCell(h.labels, h.locksOut)],
    ],
  });
}
