/**
 * The role catalogue and its closure (MW/role.py: `ROLES`, and `roles_for_role` at :354-365; the
 * data, as 25.10.1 ships it, in roles-25.10.1.json).
 *
 * 25.10.1 expands roles with a plain recursion that has no visited set, so the two self-including
 * roles it ships with (PRIVILEGE_WRITE, SYSTEM_PRODUCT_WRITE) never terminate there. We keep the
 * data exactly as shipped and make the expansion terminate instead: the defect is reproduced one
 * level up (analyze.ts), where it can be switched on deliberately.
 */
import data from './roles-25.10.1.json' with { type: 'json' };

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

/** privilege.roles reports these with `stig: null` (`stig=None` in MW/role.py:28, 108-134, 250-255): not usable under GPOS STIG. */
const NOT_STIG = new Set([
  'API_KEY_WRITE',
  'VM_WRITE',
  'VM_DEVICE_WRITE',
  'TRUECOMMAND_WRITE',
  'TRUENAS_CONNECT_WRITE',
  'CATALOG_WRITE',
  'DOCKER_WRITE',
  'APPS_WRITE',
  'VIRT_GLOBAL_WRITE',
  'VIRT_INSTANCE_WRITE',
  'VIRT_INSTANCE_DELETE',
  'VIRT_IMAGE_WRITE',
]);

let release: RoleCatalogue | undefined;

/** The shipped 25.10.1 catalogue, built once (memoized module-level). */
export function release25101Catalogue(): RoleCatalogue {
  release ??= createCatalogue(
    Object.entries(data).map(([name, role]) => ({
      name,
      includes: role.includes,
      fullAdmin: role.full_admin,
      builtin: role.builtin,
      stig: NOT_STIG.has(name) ? null : 1,
    })),
  );
  return release;
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
