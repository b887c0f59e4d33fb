import type { RoleCatalogue } from './catalogue.js';

/** Effective roles of a role list: union of closures; unknown names contribute nothing. */
export function expandRoles(catalogue: RoleCatalogue, roles: Iterable<string>): Set<string> {
  const effective = new Set<string>();
  const done = new Set<string>();
  for (const role of roles) {
    // Stored lists may repeat a role many times; each closure is merged once.
    if (done.has(role)) continue;
    done.add(role);
    for (const name of catalogue.closure(role)) effective.add(name);
  }
  return effective;
}
