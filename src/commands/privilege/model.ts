import { callChecked } from '../../core/contract/checked-call.js';
import type { PrivilegeEntry } from '../../core/contract/results.js';
import { RpcError, StorError } from '../../core/errors.js';
import {
  analyzeRoleList,
  breaksLoginOnRelease25101,
  catalogueFromPrivilegeRoles,
  release25101Catalogue,
  type RoleCatalogue,
  type RoleFinding,
} from '../../core/roles/index.js';
import type { Transport } from '../../core/transport/transport.js';

export type { PrivilegeEntry };

export interface Catalogue {
  catalogue: RoleCatalogue;
  /** `target`: read with `privilege.roles`; `built-in`: stor's copy of the 25.10.1 catalogue. */
  source: 'target' | 'built-in 25.10.1';
}

/** The target's own role catalogue when it will give it, else the shipped 25.10.1 one. */
export async function loadCatalogue(t: Transport): Promise<Catalogue> {
  try {
    const entries = await callChecked(t, 'privilege.roles');
    if (entries.length > 0) return { catalogue: catalogueFromPrivilegeRoles(entries), source: 'target' };
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
  }
  return { catalogue: release25101Catalogue(), source: 'built-in 25.10.1' };
}

export async function listPrivileges(t: Transport): Promise<PrivilegeEntry[]> {
  return callChecked(t, 'privilege.query');
}

/** A privilege by numeric id or by exact name. */
export async function findPrivilege(t: Transport, ref: string): Promise<PrivilegeEntry> {
  const all = await listPrivileges(t);
  const byId = /^\d+$/.test(ref) ? all.find((p) => p.id === Number(ref)) : undefined;
  const found = byId ?? all.find((p) => p.name === ref);
  if (!found) {
    throw new StorError('failed', 'PRIVILEGE_NOT_FOUND', `no privilege with id or name ${JSON.stringify(ref)}`, {
      hint: '`stor privilege list` shows them all',
    });
  }
  return found;
}

/** A group that no longer exists comes back as `{gid, sid: null, group: null}` (facts §3.1): shown by its gid. */
export const groupNames = (p: PrivilegeEntry): string[] => p.local_groups.map((g) => g.name ?? g.group ?? String(g.gid));

/** One problem with a privilege's role list, explained for operators (`--json` shape too). */
export interface FindingReport {
  kind: RoleFinding['kind'];
  index: number;
  role: string;
  included_by?: string;
  included_by_index?: number;
  first_index?: number;
  /** What it does at login on a 25.10.1-style appliance. */
  effect: string;
  /** What fixes it. */
  remedy: string;
}

const RECURSION = 'login of every user bound to this privilege fails with "maximum recursion depth exceeded" (25.10.1)';

export function explain(f: RoleFinding): FindingReport {
  switch (f.kind) {
    case 'overlap':
      return {
        kind: f.kind,
        index: f.index,
        role: f.role,
        included_by: f.includedBy,
        included_by_index: f.includedByIndex,
        effect: `${f.role} is already included by ${f.includedBy}: ${RECURSION}`,
        remedy: `drop ${f.role}; ${f.includedBy} grants it (effective roles unchanged)`,
      };
    case 'duplicate':
      return {
        kind: f.kind,
        index: f.index,
        role: f.role,
        first_index: f.firstIndex,
        effect: `${f.role} is listed twice: ${RECURSION}`,
        remedy: `drop the repeat at index ${f.index} (effective roles unchanged)`,
      };
    case 'self-including':
      return {
        kind: f.kind,
        index: f.index,
        role: f.role,
        effect: `${f.role} includes itself in the 25.10.1 catalogue: ${RECURSION}`,
        remedy: `drop ${f.role} (stor privilege fix --drop-self-including); its holders lose ${f.role} itself`,
      };
    case 'unknown':
      return {
        kind: f.kind,
        index: f.index,
        role: f.role,
        effect: `${f.role} is not a role of this appliance; it grants nothing (login is not affected)`,
        remedy: `drop it (stor privilege fix --drop-unknown), or correct its spelling`,
      };
  }
}

/** The health of one privilege's role list. */
export interface Health {
  /** `ok`, or the kinds of problem found: `overlap`, `self-including`, `unknown role`. */
  labels: string[];
  /** Whether a 25.10.1-style appliance refuses login to everyone bound to it. */
  locksOut: boolean;
  findings: FindingReport[];
  effective: Set<string>;
  minimal: string[];
}

export function healthOf(catalogue: RoleCatalogue, roles: readonly string[]): Health {
  const analysis = analyzeRoleList(catalogue, roles);
  const kinds = new Set(analysis.findings.map((f) => f.kind));
  const labels: string[] = [];
  if (kinds.has('overlap') || kinds.has('duplicate')) labels.push('overlap');
  if (kinds.has('self-including')) labels.push('self-including');
  if (kinds.has('unknown')) labels.push('unknown role');
  return {
    labels: labels.length ? labels : ['ok'],
    locksOut: breaksLoginOnRelease25101(analysis),
    findings: analysis.findings.map(explain),
    effective: analysis.effective,
    minimal: analysis.minimal,
  };
}
