/**
 * What is wrong with a stored role list, and the smallest list that grants the same roles.
 * Feeds save-time validation (`roleLists: reject-overlap`), the emulated login defects (`breaksLogin`)
 * and `privilege check` / `privilege fix` (docs/COMMANDS.md "The two 25.10.1 defects, and how stor helps").
 */
import type { RoleCatalogue } from './catalogue.js';
import { expandRoles } from './expand.js';

export type RoleFinding =
  | { kind: 'unknown'; index: number; role: string }
  | { kind: 'self-including'; index: number; role: string }
  | { kind: 'duplicate'; index: number; role: string; firstIndex: number }
  | { kind: 'overlap'; index: number; role: string; includedBy: string; includedByIndex: number };

export interface RoleListAnalysis {
  roles: readonly string[];
  findings: RoleFinding[];
  effective: Set<string>;
  minimal: string[];
}

/** Distinct names with the index they first appear at, in list order. */
function firstIndices(roles: readonly string[]): Map<string, number> {
  const first = new Map<string, number>();
  roles.forEach((role, index) => {
    if (!first.has(role)) first.set(role, index);
  });
  return first;
}

export function analyzeRoleList(catalogue: RoleCatalogue, roles: readonly string[]): RoleListAnalysis {
  const first = firstIndices(roles);
  // Working on distinct names keeps this quadratic in the catalogue, not in the list length;
  // a name's first index is its earliest, so scanning in that order finds the first includer.
  const known = [...first].filter(([role]) => catalogue.has(role));
  const includer = new Map<string, { role: string; index: number }>();
  for (const [role] of known) {
    const by = known.find(([other]) => other !== role && catalogue.closure(other).has(role));
    if (by !== undefined) includer.set(role, { role: by[0], index: by[1] });
  }

  // Built index by index, kinds in declaration order, so already sorted by (index, kind).
  const findings: RoleFinding[] = [];
  roles.forEach((role, index) => {
    const isKnown = catalogue.has(role);
    if (!isKnown) findings.push({ kind: 'unknown', index, role });
    else if (catalogue.isSelfIncluding(role)) findings.push({ kind: 'self-including', index, role });
    const firstIndex = first.get(role)!;
    if (firstIndex !== index) findings.push({ kind: 'duplicate', index, role, firstIndex });
    const by = isKnown ? includer.get(role) : undefined;
    if (by !== undefined) {
      findings.push({ kind: 'overlap', index, role, includedBy: by.role, includedByIndex: by.index });
    }
  });

  return { roles, findings, effective: expandRoles(catalogue, roles), minimal: minimalRoleList(catalogue, roles) };
}

/**
 * The smallest list of known roles with the same effective roles. Keeps first-appearance order. A
 * listed role is dropped when another kept listed role's closure contains it; when two distinct
 * listed roles include each other (same cycle), the first listed is kept. Unknown roles are dropped
 * (they contribute nothing); duplicates collapse.
 */
export function minimalRoleList(catalogue: RoleCatalogue, roles: readonly string[]): string[] {
  const listed = [...firstIndices(roles).keys()].filter((role) => catalogue.has(role));
  // Closure containment is a preorder; keeping the first-listed member of each maximal
  // equivalence class covers everything and no kept role can be replaced by another.
  return listed.filter((role, i) =>
    listed.every(
      (other, j) => i === j || !catalogue.closure(other).has(role) || (j > i && catalogue.closure(role).has(other)),
    ),
  );
}

/**
 * How an appliance's role expansion treats a stored list (docs/RELEASES.md "Emulator behaviours", `roleExpansion`):
 * - `as-reported`: the seed's reports (JHNF-729/730). Any overlap, known duplicate or
 *   self-including role breaks login.
 * - `self-including`: what 25.10.x's code does (`MW/role.py` `roles_for_role`, a recursion with no
 *   visited set). Only a role that includes itself recurses; overlaps and duplicates are redundancy.
 * - `none`: an expansion that always terminates (the emulator's `terminating`); nothing breaks login.
 */
export type LockoutRule = 'as-reported' | 'self-including' | 'none';

/** True when login of every user bound to a privilege with this list fails under `rule`. */
export function breaksLogin(rule: LockoutRule, analysis: RoleListAnalysis): boolean {
  return analysis.findings.some((f) => findingBreaksLogin(rule, f, analysis));
}

/** Whether one finding of `analysis`, on its own, breaks login under `rule`. */
export function findingBreaksLogin(rule: LockoutRule, finding: RoleFinding, analysis: RoleListAnalysis): boolean {
  if (rule === 'none' || finding.kind === 'unknown') return false;
  if (rule === 'self-including') return finding.kind === 'self-including';
  // A repeated unknown name still expands to nothing, so only known duplicates count.
  if (finding.kind === 'duplicate')
    return !analysis.findings.some((f) => f.kind === 'unknown' && f.index === finding.index);
  return true;
}
