import type { RoleCatalogue } from './catalogue.js';

/**
 * The include graph read in both directions, for showing a catalogue to people. Closures come
 * from the catalogue (which terminates on cycles); the tree walks the raw edges so cycles and
 * self-inclusion can be shown where they are.
 */

/** Roles that list `name` among their own includes. */
export function includedByDirectly(catalogue: RoleCatalogue, name: string): string[] {
  return catalogue.names.filter((r) => catalogue.get(r)!.includes.includes(name));
}

/** What `name` grants besides itself; itself too when it includes itself. */
export function includesInTotal(catalogue: RoleCatalogue, name: string): string[] {
  const self = catalogue.isSelfIncluding(name);
  return [...catalogue.closure(name)].filter((r) => r !== name || self);
}

/** Roles whose grant contains `name` (FULL_ADMIN contains every role); itself when it includes itself. */
export function includedByInTotal(catalogue: RoleCatalogue, name: string): string[] {
  return catalogue.names.filter((r) => (r === name ? catalogue.isSelfIncluding(name) : catalogue.closure(r).has(name)));
}

/**
 * Why a branch of the tree stops: `self` a role that lists itself, `cycle` a role already on the
 * path above (a longer loop), `full-admin` the role that grants everything (never expanded
 * upstream), `unknown` a name the catalogue does not define.
 */
export type TreeMark = 'self' | 'cycle' | 'full-admin' | 'unknown';

/** `stor privilege roles --tree --json`: one role and what it includes, drawn as a tree. */
export interface RoleTreeNode {
  role: string;
  mark: TreeMark | null;
  children: RoleTreeNode[];
}

/** The inclusion tree under `name`; every path stops at the first repeat, so it is finite. */
export function inclusionTree(catalogue: RoleCatalogue, name: string): RoleTreeNode {
  const walk = (role: string, path: readonly string[]): RoleTreeNode => {
    const def = catalogue.get(role);
    if (!def) return { role, mark: 'unknown', children: [] };
    if (path.length > 0 && path[path.length - 1] === role) return { role, mark: 'self', children: [] };
    if (path.includes(role)) return { role, mark: 'cycle', children: [] };
    if (def.fullAdmin) return { role, mark: 'full-admin', children: [] };
    const below = [...path, role];
    return { role, mark: null, children: def.includes.map((child) => walk(child, below)) };
  };
  return walk(name, []);
}

/** Roles no other role includes directly: the tops of the forest `--tree` draws without a role. */
export function topRoles(catalogue: RoleCatalogue): string[] {
  const included = new Set(catalogue.names.flatMap((r) => catalogue.get(r)!.includes.filter((c) => c !== r)));
  return catalogue.names.filter((r) => !included.has(r));
}
