import { fnmatch } from '../fnmatch.js';
import type { AllowlistEntry } from './session.js';

/**
 * Whether an allowlist grants `verb` (`CALL`, `SUBSCRIBE`) on `resource`, as 25.10.1's
 * `Allowlist.authorize` decides it (MW/utils/allowlist.py): an entry for that verb or for `*`,
 * naming the resource exactly or, when it holds a `*`, by fnmatch's pattern (MW/utils/allowlist.py:15-21).
 */
export function allowlistAuthorizes(allowlist: readonly AllowlistEntry[], verb: string, resource: string): boolean {
  return allowlist.some(
    (e) =>
      (e.method === '*' || e.method === verb) &&
      (e.resource.includes('*') ? fnmatch(resource, e.resource) : e.resource === resource),
  );
}
