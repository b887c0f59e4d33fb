import { minimalRoleList } from './analyze.js';
import type { RoleCatalogue } from './catalogue.js';

/**
 * The least-privilege role list for a set of methods (docs/COMMANDS.md "privilege suggest"), from what the
 * target says of each method: `core.get_methods` lists, per method, every role that grants it —
 * its own roles and every role that includes one of them (`roles_for_method`, MW/role.py:302-318,
 * 383-384) — FULL_ADMIN alone for a method only a full administrator may call, and none for a
 * method any logged-in user may call.
 */

/** One method and the roles its target says grant it. */
export interface MethodGrants {
  method: string;
  roles: readonly string[];
}

export interface RoleCover {
  /** The list to give: the fewest roles, granting the least, that grant every method. */
  roles: string[];
  /** Per method, the role of `roles` that grants it (FULL_ADMIN for `fullAdminOnly`, null for `noRoleNeeded`). */
  grantedBy: Record<string, string | null>;
  /** Methods only FULL_ADMIN may call: then `roles` is FULL_ADMIN alone, which grants everything. */
  fullAdminOnly: string[];
  /** Methods any logged-in user may call. */
  noRoleNeeded: string[];
}

const FULL_ADMIN = 'FULL_ADMIN';
/** Beyond this many combinations the choice is made one method at a time (never reached by stor's own commands). */
const EXHAUSTIVE_LIMIT = 50_000;

/**
 * The smallest cover. Only the least roles that grant a method are candidates (a role that
 * includes another candidate grants everything that one does and more), and roles `avoid` names
 * (self-including ones where they lock users out) only when nothing else grants the method. Among
 * the combinations of one candidate per method, the one granting the fewest roles in total wins,
 * then the one with the fewest roles, then the alphabetically first.
 */
export function coverMethods(
  catalogue: RoleCatalogue,
  grants: readonly MethodGrants[],
  avoid: (role: string) => boolean = () => false,
): RoleCover {
  const fullAdminOnly: string[] = [];
  const noRoleNeeded: string[] = [];
  const choices: { method: string; candidates: string[] }[] = [];
  for (const { method, roles } of grants) {
    const granting = [...new Set(roles)].filter(
      (r) => r !== FULL_ADMIN && catalogue.has(r) && !catalogue.get(r)!.fullAdmin,
    );
    if (roles.length === 0) noRoleNeeded.push(method);
    else if (granting.length === 0) fullAdminOnly.push(method);
    else {
      const least = granting.filter(
        (r) =>
          !granting.some((other) => other !== r && catalogue.closure(r).has(other) && !catalogue.closure(other).has(r)),
      );
      const safe = least.filter((r) => !avoid(r));
      choices.push({ method, candidates: (safe.length ? safe : least).sort() });
    }
  }
  if (fullAdminOnly.length > 0) {
    const grantedBy = Object.fromEntries(
      grants.map(({ method }) => [method, noRoleNeeded.includes(method) ? null : FULL_ADMIN]),
    );
    return { roles: [FULL_ADMIN], grantedBy, fullAdminOnly, noRoleNeeded };
  }
  const picked =
    choices.reduce((n, c) => n * c.candidates.length, 1) <= EXHAUSTIVE_LIMIT
      ? bestCombination(catalogue, choices)
      : greedy(catalogue, choices);
  const roles = minimalRoleList(catalogue, [...new Set(picked)].sort());
  const grantedBy: Record<string, string | null> = Object.fromEntries(noRoleNeeded.map((m) => [m, null]));
  choices.forEach((c, i) => {
    grantedBy[c.method] = roles.find((r) => r === picked[i] || catalogue.closure(r).has(picked[i]!)) ?? picked[i]!;
  });
  return { roles, grantedBy, fullAdminOnly, noRoleNeeded };
}

type Score = [granted: number, count: number, key: string];

function score(catalogue: RoleCatalogue, picked: readonly string[]): Score {
  const distinct = [...new Set(picked)].sort();
  const granted = new Set<string>();
  for (const r of distinct) for (const g of catalogue.closure(r)) granted.add(g);
  return [granted.size, distinct.length, distinct.join(',')];
}

const better = (a: Score, b: Score) => (a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]);

function bestCombination(catalogue: RoleCatalogue, choices: readonly { candidates: string[] }[]): string[] {
  let best: { picked: string[]; score: Score } | undefined;
  const walk = (i: number, picked: string[]) => {
    if (i === choices.length) {
      const s = score(catalogue, picked);
      if (!best || better(s, best.score)) best = { picked: [...picked], score: s };
      return;
    }
    for (const c of choices[i]!.candidates) walk(i + 1, [...picked, c]);
  };
  walk(0, []);
  return best!.picked;
}

/** One method at a time: the candidate that adds the fewest granted roles to those chosen so far. */
function greedy(catalogue: RoleCatalogue, choices: readonly { candidates: string[] }[]): string[] {
  const picked: string[] = [];
  for (const { candidates } of choices) {
    let best: { role: string; score: Score } | undefined;
    for (const c of candidates) {
      const s = score(catalogue, [...picked, c]);
      if (!best || better(s, best.score)) best = { role: c, score: s };
    }
    picked.push(best!.role);
  }
  return picked;
}
