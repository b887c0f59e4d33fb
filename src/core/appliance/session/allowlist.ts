import type { AllowlistEntry } from './session.js';

/** fnmatch's translation of `*` and `?` (the patterns an allowlist holds), anchored at both ends. */
function pattern(resource: string): RegExp {
  const body = resource
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/**
 * Whether an allowlist grants `verb` (`CALL`, `SUBSCRIBE`) on `resource`, as 25.10.1's
 * `Allowlist.authorize` decides it (MW/utils/allowlist.py): an entry for that verb or for `*`,
 * naming the resource exactly or by a wildcard pattern.
 */
export function allowlistAuthorizes(allowlist: readonly AllowlistEntry[], verb: string, resource: string): boolean {
  return allowlist.some(
    (e) =>
      (e.method === '*' || e.method === verb) &&
      (e.resource.includes('*') ? pattern(e.resource).test(resource) : e.resource === resource),
  );
}
