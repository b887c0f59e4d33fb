import { queryItems, type Needed } from '../../core/contract/client.js';
import { RpcError, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import {
  analyzeRoleList,
  breaksLogin,
  catalogueFromPrivilegeRoles,
  findingBreaksLogin,
  fixRoleList,
  type RoleCatalogue,
  type RoleFinding,
  type RoleListAnalysis,
  type RoleListFix,
  type RoleListFixOptions,
} from '../../core/roles/index.js';
import { DEFAULT_RELEASE, RELEASES, type ReleaseName } from '../../core/releases/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { targetRelease } from '../shared/target-release.js';
import { detectLockoutModel, selfIncludingAdvice, type LockoutModel } from './lockout.js';

/** A privilege with the fields the privilege verbs read (`privilege.query` items may omit any). */
export type Privilege = Needed<'privilege.query', (typeof PRIVILEGE_FIELDS)[number]>;
const PRIVILEGE_FIELDS = ['id', 'builtin_name', 'name', 'local_groups', 'roles', 'web_shell'] as const;

export interface Catalogue {
  catalogue: RoleCatalogue;
  /** `target`: read with `privilege.roles`; `built-in …`: stor's copy of the target's release's catalogue (25.10.1's when the release is unknown). */
  source: 'target' | `built-in ${ReleaseName}`;
}

/** The target's catalogue and what locks users out on it: what every privilege verb judges by. */
export interface TargetRoles extends Catalogue {
  model: LockoutModel;
}

export async function loadTargetRoles(t: Transport): Promise<TargetRoles> {
  const [catalogue, model] = await Promise.all([loadCatalogue(t), detectLockoutModel(t)]);
  return { ...catalogue, model };
}

/**
 * The target's own role catalogue when it will give it, else the one stor ships for the target's
 * release (26.0's for a 26.0 target), else 25.10.1's.
 */
export async function loadCatalogue(t: Transport): Promise<Catalogue> {
  try {
    const entries = await queryItems(t, 'privilege.roles', ['name', 'includes', 'builtin']);
    if (entries.length > 0) return { catalogue: catalogueFromPrivilegeRoles(entries), source: 'target' };
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
  }
  const { release } = await targetRelease(t).catch((err: unknown) => {
    if (err instanceof RpcError) return { release: null };
    throw err;
  });
  const known = RELEASES[release ?? DEFAULT_RELEASE];
  return { catalogue: known.catalogue(), source: `built-in ${known.name}` };
}

export async function listPrivileges(t: Transport, filters: unknown[] = []): Promise<Privilege[]> {
  return queryItems(t, 'privilege.query', PRIVILEGE_FIELDS, filters);
}

/** A privilege by numeric id or by exact name. */
export async function findPrivilege(t: Transport, ref: string): Promise<Privilege> {
  const all = await listPrivileges(t);
  const byId = /^\d+$/.test(ref) ? all.find((p) => p.id === Number(ref)) : undefined;
  const found = byId ?? all.find((p) => p.name === ref);
  if (!found) {
    throw new StorError(E.NOT_FOUND, `no privilege with id or name ${JSON.stringify(ref)}`, {
      hint: '`stor privilege list` shows them all',
    });
  }
  return found;
}

/** A group that no longer exists comes back as `{gid, sid: null, group: null}` (MW/plugins/account_/privilege.py:233-238): shown by its gid. */
export const groupNames = (p: Pick<Privilege, 'local_groups'>): string[] =>
  p.local_groups.map((g) => ('name' in g ? g.name : String(g.gid ?? g.sid)));

/** One problem with a privilege's role list, explained for operators (`--json` shape too). */
export interface FindingReport {
  kind: RoleFinding['kind'];
  index: number;
  role: string;
  included_by?: string;
  included_by_index?: number;
  first_index?: number;
  /** Whether this finding alone locks the privilege's users out on this target. */
  locks_out: boolean;
  /** What it does at login on this target. */
  effect: string;
  /** What fixes it. */
  remedy: string;
  /** For a self-including role: what dropping it costs, and what keeps most of it. */
  loses?: string;
  keep?: string;
}

const RECURSION = 'login of every user bound to this privilege fails with "maximum recursion depth exceeded"';

export function explain(roles: TargetRoles, f: RoleFinding, analysis: RoleListAnalysis): FindingReport {
  const { model, catalogue } = roles;
  const locks_out = findingBreaksLogin(model.rule, f, analysis);
  const base = { kind: f.kind, index: f.index, role: f.role, locks_out };
  const consequence = locks_out ? `${RECURSION} on ${model.name}` : `redundant; harmless on ${model.name}`;
  switch (f.kind) {
    case 'overlap':
      return {
        ...base,
        included_by: f.includedBy,
        included_by_index: f.includedByIndex,
        effect: `${f.role} is already included by ${f.includedBy}: ${consequence}`,
        remedy: `drop ${f.role}; ${f.includedBy} grants it (effective roles unchanged; stor privilege fix does it)`,
      };
    case 'duplicate':
      return {
        ...base,
        first_index: f.firstIndex,
        effect: `${f.role} is listed twice: ${consequence}`,
        remedy: `drop the repeat at index ${f.index} (effective roles unchanged; stor privilege fix does it)`,
      };
    case 'self-including': {
      const advice = selfIncludingAdvice(f.role, (name) => catalogue.has(name));
      return {
        ...base,
        effect: locks_out
          ? `${f.role} includes itself in this appliance's catalogue: ${RECURSION} on ${model.name}`
          : `${f.role} includes itself in the catalogue; ${model.name} expands it anyway, but a real 25.10 or 26.0 would refuse login`,
        remedy: `drop ${f.role} (stor privilege fix --drop-self-including): that loses ${advice.loses}; to keep most of it, ${advice.keep}`,
        loses: advice.loses,
        keep: advice.keep,
      };
    }
    case 'unknown':
      return {
        ...base,
        effect: `${f.role} is not a role of this appliance; it grants nothing (login is not affected)`,
        remedy: `drop it (stor privilege fix --drop-unknown), or correct its spelling`,
      };
  }
}

/** The health of one privilege's role list. */
export interface Health {
  /** `ok`, or the kinds of problem found: `overlap`, `self-including`, `unknown role`. */
  labels: string[];
  /** Whether this target refuses login to everyone bound to it. */
  locksOut: boolean;
  findings: FindingReport[];
  effective: Set<string>;
  /** What `privilege fix` would write with these options (core/roles/fix.ts decides it, for every verb). */
  fix(options?: RoleListFixOptions): RoleListFix;
}

export function healthOf(roles: TargetRoles, list: readonly string[]): Health {
  const analysis = analyzeRoleList(roles.catalogue, list);
  const kinds = new Set(analysis.findings.map((f) => f.kind));
  const labels: string[] = [];
  if (kinds.has('overlap') || kinds.has('duplicate')) labels.push('overlap');
  if (kinds.has('self-including')) labels.push('self-including');
  if (kinds.has('unknown')) labels.push('unknown role');
  return {
    labels: labels.length ? labels : ['ok'],
    locksOut: breaksLogin(roles.model.rule, analysis),
    findings: analysis.findings.map((f) => explain(roles, f, analysis)),
    effective: analysis.effective,
    fix: (options) => fixRoleList(roles.catalogue, analysis, options),
  };
}

/**
 * The fix `privilege check` proposes: the options its findings call for — `--drop-self-including`
 * where a self-including role locks users out, `--drop-unknown` where a name is unknown (it grants
 * nothing) — as the command line to run and the list that command writes.
 */
export function proposedFix(h: Health): { flags: string; after: string[] } {
  const options: RoleListFixOptions = {
    dropSelfIncluding: h.findings.some((f) => f.locks_out && f.kind === 'self-including'),
    dropUnknown: h.findings.some((f) => f.kind === 'unknown'),
  };
  return {
    flags: `${options.dropSelfIncluding ? ' --drop-self-including' : ''}${options.dropUnknown ? ' --drop-unknown' : ''}`,
    after: h.fix(options).after,
  };
}

/** The model as `--json` carries it. */
export const modelJson = (roles: TargetRoles) => ({
  rule: roles.model.rule,
  name: roles.model.name,
  basis: roles.model.basis,
  release: roles.model.release,
  emulator: roles.model.emulator,
  catalogue: roles.source,
});
