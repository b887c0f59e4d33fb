/**
 * The role catalogue and its closure (MW/role.py: `ROLES`, and `roles_for_role` at :354-365; the
 * data, as each release ships it, in roles-<release>.json, written by scripts/role-catalogue.py
 * from that release's MW/role.py).
 *
 * 25.10.1 expands roles with a plain recursion that has no visited set, so the two self-including
 * roles it ships with (PRIVILEGE_WRITE, SYSTEM_PRODUCT_WRITE) never terminate there. We keep the
 * data exactly as shipped and make the expansion terminate instead: the defect is reproduced one
 * level up (analyze.ts), where it can be switched on deliberately.
 */
import data25101 from './roles-25.10.1.json' with { type: 'json' };
import data260 from './roles-26.0.json' with { type: 'json' };

export interface RoleDefinition {
  name: string;
  includes: readonly string[];
  fullAdmin: boolean;
  builtin: boolean;
  stig: 1 | null;
}

export interface RoleCatalogue {
  readonly names: readonly string[];
  get(name: string): RoleDefinition | undefined;
  has(name: string): boolean;
  /**
   * Closure of one role: itself plus everything it includes, transitively; FULL_ADMIN (fullAdmin) →
   * every name; unknown → empty set. Memoized; terminates on cycles; linear in the catalogue per
   * role.
   */
  closure(name: string): ReadonlySet<string>;
  /**
   * Roles reachable from themselves through one or more include edges (self-loops or longer
   * cycles).
   */
  isSelfIncluding(name: string): boolean;
}

const EMPTY: ReadonlySet<string> = new Set();

export function createCatalogue(defs: Iterable<RoleDefinition>): RoleCatalogue {
  const byName = new Map<string, RoleDefinition>();
  for (const def of defs) {
    // Two definitions of one name would make every closure depend on which one won.
    if (byName.has(def.name)) throw new Error(`duplicate role definition: ${def.name}`);
    byName.set(def.name, Object.freeze({ ...def, includes: Object.freeze([...def.includes]) }));
  }
  const names = Object.freeze([...byName.keys()]);
  const everything: ReadonlySet<string> = new Set(names);
  const closures = new Map<string, ReadonlySet<string>>();
  const selfIncluding = new Map<string, boolean>();

  // A full-admin role is expanded flatly upstream (its own includes are never followed), so for
  // walking the include graph it is a sink.
  const edges = (name: string): readonly string[] => {
    const def = byName.get(name);
    return def === undefined || def.fullAdmin ? [] : def.includes;
  };

  const closure = (name: string): ReadonlySet<string> => {
    const cached = closures.get(name);
    if (cached !== undefined) return cached;
    if (!byName.has(name)) return EMPTY;
    const seen = new Set<string>();
    const stack = [name];
    let reachesFullAdmin = false;
    while (stack.length > 0 && !reachesFullAdmin) {
      const current = stack.pop()!;
      if (seen.has(current) || !byName.has(current)) continue;
      if (byName.get(current)!.fullAdmin) reachesFullAdmin = true;
      const known = current === name ? undefined : closures.get(current);
      if (known !== undefined) {
        // An already-computed closure is reused whole; this keeps repeated calls cheap.
        for (const n of known) seen.add(n);
        if (known === everything) reachesFullAdmin = true;
        continue;
      }
      seen.add(current);
      for (const next of edges(current)) if (!seen.has(next)) stack.push(next);
    }
    const result = reachesFullAdmin ? everything : seen;
    closures.set(name, result);
    return result;
  };

  const isSelfIncluding = (name: string): boolean => {
    const cached = selfIncluding.get(name);
    if (cached !== undefined) return cached;
    // Walk edges only (not closure()): a role that includes FULL_ADMIN gets every name without
    // any recursion upstream, so it must not count as self-including.
    const seen = new Set<string>();
    const stack = [...edges(name)];
    let found = false;
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (current === name) {
        found = true;
        break;
      }
      if (seen.has(current) || !byName.has(current)) continue;
      seen.add(current);
      stack.push(...edges(current));
    }
    selfIncluding.set(name, found);
    return found;
  };

  return {
    names,
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
    closure,
    isSelfIncluding,
  };
}

/** A catalogue as shipped: `stig` null where privilege.roles reports null (`stig=None` in MW/role.py). */
type ShippedRoles = Record<string, { includes: string[]; full_admin: boolean; builtin: boolean; stig: number | null }>;

/**
 * The catalogues stor ships, by the role.py they were read from: `25.10.1` (TS-25.10.1, 141 roles;
 * release/25.10.7's role.py is the same file, `git diff TS-25.10.1 release/25.10.7 -- MW/role.py`
 * is empty) and `26.0` (stable/26 = 26.0.0-RC.1, 146 roles).
 */
const SHIPPED = { '25.10.1': data25101 as ShippedRoles, '26.0': data260 as ShippedRoles };
export type ShippedCatalogueName = keyof typeof SHIPPED;

const shipped = new Map<ShippedCatalogueName, RoleCatalogue>();

/** A shipped catalogue, built once (memoized module-level). */
export function shippedCatalogue(name: ShippedCatalogueName): RoleCatalogue {
  let built = shipped.get(name);
  if (built === undefined) {
    built = createCatalogue(
      Object.entries(SHIPPED[name]).map(([role, def]) => ({
        name: role,
        includes: def.includes,
        fullAdmin: def.full_admin,
        builtin: def.builtin,
        stig: def.stig === null ? null : 1,
      })),
    );
    shipped.set(name, built);
  }
  return built;
}

/** The shipped 25.10.1 catalogue. */
export function release25101Catalogue(): RoleCatalogue {
  return shippedCatalogue('25.10.1');
}

/**
 * From `privilege.roles` entries of a remote appliance ({name, title, includes, builtin, stig}); a
 * role named FULL_ADMIN with no includes is taken as the full-admin role.
 */
export function catalogueFromPrivilegeRoles(
  entries: readonly { name: string; includes: readonly string[]; builtin: boolean; stig?: 1 | null }[],
): RoleCatalogue {
  // A catalogue is immutable, so an identical answer gets the one built before (with the closures
  // it memoized): a session agent's `--targets` run over one release's appliances builds it once,
  // not once per target and run (≈0.6 ms each, bench/HISTORY.md 2026-11-26).
  // stig as built below: JSON.stringify would write an absent one as null.
  const key = JSON.stringify(entries.map((e) => [e.name, e.includes, e.builtin, e.stig === undefined ? 1 : e.stig]));
  const known = fromAnswers.get(key);
  if (known !== undefined) return known;
  const built = buildFromPrivilegeRoles(entries);
  if (fromAnswers.size >= MAX_REMEMBERED) fromAnswers.delete(fromAnswers.keys().next().value!);
  fromAnswers.set(key, built);
  return built;
}

/** Catalogues built from `privilege.roles` answers, by answer: a few releases' worth. */
const fromAnswers = new Map<string, RoleCatalogue>();
const MAX_REMEMBERED = 8;

function buildFromPrivilegeRoles(entries: Parameters<typeof catalogueFromPrivilegeRoles>[0]): RoleCatalogue {
  return createCatalogue(
    entries.map((entry) => ({
      name: entry.name,
      includes: entry.includes,
      // privilege.roles does not expose full_admin; FULL_ADMIN's empty include list is the tell.
      fullAdmin: entry.name === 'FULL_ADMIN' && entry.includes.length === 0,
      builtin: entry.builtin,
      // Releases that predate STIG mode omit the field; nothing was filtered on them.
      stig: entry.stig === undefined ? 1 : entry.stig,
    })),
  );
}
