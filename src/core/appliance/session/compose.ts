import { rpcErrors } from '../../errors.js';
import { analyzeRoleList, breaksLogin, expandRoles, type LockoutRule, type RoleCatalogue } from '../../roles/index.js';
import type { PrivilegeRecord } from '../../store/privileges.js';
import { CONTRACT_EVENTS } from '../../contract/events.js';
import type { MethodContract } from '../../contract/method.js';
import type { ComposedPrivilege, AllowlistEntry } from './session.js';
import type { ApplianceSettings } from '../settings.js';

/** The rule each emulated role expansion follows; `stor privilege check` asks for it (`stor.emulation`). */
export const LOCKOUT_RULE: Record<ApplianceSettings['roleExpansion'], LockoutRule> = {
  terminating: 'none',
  'as-reported': 'as-reported',
  'truenas-25.10.1': 'self-including',
};

/**
 * Folds the privileges bound to a user into one session privilege
 * (MW/plugins/account_/privilege.py:374-396).
 *
 * With `truenas-25.10.1` expansion, a privilege listing a self-including role fails the whole
 * login with a RecursionError (`rpcErrors.recursion`, src/core/errors.ts), as 25.10.1's
 * `roles_for_role` does (MW/role.py:354-365); with `as-reported`, so does any list the seed's reports say breaks (an overlap, a duplicate).
 * With `terminating` (the default) the expansion is a closure union over memoized closures: it
 * always ends, in time linear in the catalogue.
 */
export function composePrivileges(
  catalogue: RoleCatalogue,
  privileges: readonly PrivilegeRecord[],
  expansion: ApplianceSettings['roleExpansion'],
  methods: ReadonlyMap<string, MethodContract>,
): ComposedPrivilege {
  const rule = LOCKOUT_RULE[expansion];
  if (rule !== 'none') {
    for (const p of privileges) {
      if (breaksLogin(rule, analyzeRoleList(catalogue, p.roles))) throw rpcErrors.recursion();
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

/**
 * `allowlist_for_role` over the session's roles (MW/role.py:367-381): FULL_ADMIN's wildcard, or a
 * CALL entry per method and a SUBSCRIBE entry per event one of the roles is registered for.
 */
function allowlistFor(roles: ReadonlySet<string>, methods: ReadonlyMap<string, MethodContract>): AllowlistEntry[] {
  if (roles.has('FULL_ADMIN')) return [{ method: '*', resource: '*' }];
  const entries: AllowlistEntry[] = [];
  for (const m of methods.values()) {
    if (m.access.kind === 'roles' && m.access.roles.some((r) => roles.has(r))) {
      entries.push({ method: 'CALL', resource: m.name });
    }
  }
  for (const e of CONTRACT_EVENTS.values()) {
    if (e.roles.some((r) => roles.has(r))) entries.push({ method: 'SUBSCRIBE', resource: e.name });
  }
  return entries;
}
