import { rpcErrors } from '../errors.js';
import { analyzeRoleList, breaksLoginOnRelease25101, expandRoles, type RoleCatalogue } from '../roles/index.js';
import type { PrivilegeRecord } from '../store/privileges.js';
import type { MethodDefinition } from './method.js';
import type { ComposedPrivilege, AllowlistEntry } from './session.js';
import type { ApplianceSettings } from './settings.js';

/**
 * Folds the privileges bound to a user into one session privilege (facts §3.3).
 *
 * With `release-25.10.1` expansion, a privilege whose list 25.10.1 cannot expand (a role with
 * another role in its closure, or a self-including role) fails the whole login with the
 * RecursionError of seed §7.1, as the real appliance does. With `terminating` (the default) the
 * expansion is a closure union over memoized closures: it always ends, in time linear in the
 * catalogue.
 */
export function composePrivileges(
  catalogue: RoleCatalogue,
  privileges: readonly PrivilegeRecord[],
  expansion: ApplianceSettings['roleExpansion'],
  methods: ReadonlyMap<string, MethodDefinition>,
): ComposedPrivilege {
  if (expansion === 'release-25.10.1') {
    for (const p of privileges) {
      if (breaksLoginOnRelease25101(analyzeRoleList(catalogue, p.roles))) throw rpcErrors.recursion();
    }
  }
  const listed = privileges.flatMap((p) => p.roles);
  const roles = expandRoles(catalogue, listed);
  return {
    roles,
    allowlist: allowlistFor(roles, methods),
    web_shell: privileges.some((p) => p.web_shell),
    // A privilege made only of builtin roles grants API access but not the web UI.
    webui_access: listed.some((r) => catalogue.get(r)?.builtin === false),
  };
}

function allowlistFor(roles: ReadonlySet<string>, methods: ReadonlyMap<string, MethodDefinition>): AllowlistEntry[] {
  if (roles.has('FULL_ADMIN')) return [{ method: '*', resource: '*' }];
  const entries: AllowlistEntry[] = [];
  for (const m of methods.values()) {
    if (m.access.kind === 'roles' && m.access.roles.some((r) => roles.has(r))) {
      entries.push({ method: 'CALL', resource: m.name });
    }
  }
  return entries;
}
