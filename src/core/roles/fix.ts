import type { RoleListAnalysis } from './analyze.js';
import type { RoleCatalogue } from './catalogue.js';

/** What a fix may take beyond redundancy: both change what the list says, so both are asked for. */
export interface RoleListFixOptions {
  /** Drop names the catalogue does not know (they grant nothing; kept by default: a typo to see, or a role of another release). */
  dropUnknown?: boolean;
  /** Drop roles that include themselves (they lock users out on 25.10.1, and dropping them changes the effective roles). */
  dropSelfIncluding?: boolean;
}

/** A listed role a fix drops, at its index, and why. */
export interface DroppedRole {
  index: number;
  role: string;
  why: 'duplicate' | 'unknown' | 'overlap' | 'self-including';
  /** For an overlap: the kept role that includes it, when one listed role does. */
  includedBy?: string;
}

export interface RoleListFix {
  /** The list written: the roles kept, in list order. */
  after: string[];
  dropped: DroppedRole[];
}

/**
 * Which roles of a list a fix keeps: the one decision that `stor privilege fix` writes and
 * `stor privilege check` suggests (and `privilege create/update` advise), so they cannot
 * disagree. Redundancy always goes: a repeat, and a known role another kept role includes
 * (`minimalRoleList`'s choice). An unknown name stays unless `dropUnknown`; a self-including
 * role stays unless `dropSelfIncluding`.
 */
export function fixRoleList(
  catalogue: RoleCatalogue,
  analysis: RoleListAnalysis,
  options: RoleListFixOptions = {},
): RoleListFix {
  const keep = new Set(analysis.minimal);
  const includedBy = new Map(
    analysis.findings.flatMap((f) => (f.kind === 'overlap' ? [[f.index, f.includedBy] as const] : [])),
  );
  const after: string[] = [];
  const dropped: DroppedRole[] = [];
  for (const [index, role] of analysis.roles.entries()) {
    const by = includedBy.get(index);
    if (after.includes(role)) dropped.push({ index, role, why: 'duplicate' });
    else if (!catalogue.has(role)) {
      if (options.dropUnknown) dropped.push({ index, role, why: 'unknown' });
      else after.push(role);
    } else if (!keep.has(role))
      dropped.push({ index, role, why: 'overlap', ...(by !== undefined ? { includedBy: by } : {}) });
    else if (options.dropSelfIncluding && catalogue.isSelfIncluding(role))
      dropped.push({ index, role, why: 'self-including' });
    else after.push(role);
  }
  return { after, dropped };
}
