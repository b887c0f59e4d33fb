/**
 * What is wrong with a stored role list, and the smallest list that grants the same roles.
 * Feeds save-time validation (`roleLists: reject-overlap`), the `release-25.10.1` login defect
 * and `privilege check` / `privilege fix` (SPEC §2.2, §4).
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
      (other, j) =>
        i === j || !catalogue.closure(other).has(role) || (j > i && catalogue.closure(role).has(other)),
    ),
  );
}

/**
 * True when 25.10.1's non-terminating expansion would fail login for a privilege with this list:
 * any overlap, duplicate or self-including finding (SPEC: a role listed together with another role
 * in its closure — a meta-role with one of its included roles, FULL_ADMIN with anything else — or a
 * role whose closure contains itself). Unknown roles alone do not break login.
 */
export function breaksLoginOnRelease25101(analysis: RoleListAnalysis): boolean {
  // A repeated unknown name still expands to nothing, so only known duplicates count.
  const unknownAt = new Set(analysis.findings.filter((f) => f.kind === 'unknown').map((f) => f.index));
  return analysis.findings.some(
    (f) =>
      f.kind === 'overlap' ||
      f.kind === 'self-including' ||
      (f.kind === 'duplicate' && !unknownAt.has(f.index)),
  );
}
