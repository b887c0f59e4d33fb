import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { privilegeDeleteRefusal } from '../../refusals/accounts.js';
import { analyzeRoleList, type RoleCatalogue, type RoleFinding } from '../../roles/index.js';
import {
  deletePrivilege,
  findPrivilege,
  insertPrivilege,
  updatePrivilege,
  type PrivilegeRecord,
} from '../../store/privileges.js';
import { GID } from '../../store/seed.js';
import { AccountsSnapshot, type PrivilegeEntry } from '../accounts/accounts.js';
import { hasPasswordEnabledUser } from '../accounts/checks.js';
import type { Appliance } from '../appliance.js';
import { privilegeContract } from '../../contract/privilege.js';
import { implement } from '../method.js';
import { query } from '../query/index.js';

// The handlers of contract/privilege.ts, as `MW/plugins/account_/privilege.py` answers them.

/** Why a role list would lock its users out, phrased for a save-time refusal (`reject-overlap`). */
function overlapMessage(f: RoleFinding): string | null {
  switch (f.kind) {
    case 'overlap':
      return `${f.role} is already included by ${f.includedBy} (index ${f.includedByIndex}); remove it: listing a role together with a role that includes it breaks login on 25.10.1`;
    case 'duplicate':
      return `${f.role} is already listed at index ${f.firstIndex}`;
    case 'self-including':
      return `${f.role} includes itself; role expansion on 25.10.1 never ends for it`;
    default:
      return null;
  }
}

/** The checks of MW/plugins/account_/privilege.py:109-140, 174-210, plus the optional save-time overlap
 * check (docs/RELEASES.md "Emulator behaviours", `roleLists`). */
function validatePrivilege(
  appliance: Appliance,
  accounts: AccountsSnapshot,
  prefix: 'privilege_create' | 'privilege_update',
  next: Omit<PrivilegeRecord, 'id'>,
  existing: PrivilegeRecord | null,
): ValidationTriple[] {
  const catalogue: RoleCatalogue = appliance.catalogue;
  const errors: ValidationTriple[] = [];
  if (accounts.privileges.some((p) => p.name === next.name && p.id !== existing?.id)) {
    errors.push([`${prefix}.name`, 'Object with this name already exists', ERRNO.EINVAL]);
  }
  next.local_groups.forEach((gid, i) => {
    if (!accounts.groupByGid.has(gid)) {
      errors.push([
        `${prefix}.local_groups.${i}`,
        `${gid}: local group does not exist. This error may be addressed by either re-creating the missing group with the specified group id or removing this entry from the privilege.`,
        ERRNO.EINVAL,
      ]);
    }
  });
  next.ds_groups.forEach((id, i) => {
    errors.push([
      `${prefix}.ds_groups.${i}`,
      `${id}: directory service group does not exist. If the directory service state is healthy, then this error may be addressed by removing this entry from the privilege.`,
      ERRNO.EINVAL,
    ]);
  });
  next.roles.forEach((role, i) => {
    if (!catalogue.has(role)) errors.push([`${prefix}.roles.${i}`, 'Invalid role', ERRNO.EINVAL]);
  });
  if (appliance.settings.roleLists === 'reject-overlap') {
    for (const f of analyzeRoleList(catalogue, next.roles).findings) {
      const message = overlapMessage(f);
      if (message) errors.push([`${prefix}.roles.${f.index}`, message, ERRNO.EINVAL]);
    }
  }
  if (existing?.builtin_name) {
    if (next.name !== existing.name)
      errors.push([`privilege_update.name`, 'This field is read-only for built-in privileges', ERRNO.EINVAL]);
    if (JSON.stringify(next.roles) !== JSON.stringify(existing.roles)) {
      errors.push([`privilege_update.roles`, 'This field is read-only for built-in privileges', ERRNO.EINVAL]);
    }
    if (existing.builtin_name === 'LOCAL_ADMINISTRATOR' && !next.local_groups.includes(GID.builtin_administrators)) {
      errors.push([
        'privilege_update.local_groups',
        'The group builtin_administrators must be among grantees of the "Local Administrator" privilege.',
        ERRNO.EINVAL,
      ]);
    }
    // MW/plugins/account_/privilege.py:126-131: no user excluded, so whenever none of the groups has one.
    if (existing.builtin_name === 'LOCAL_ADMINISTRATOR' && !hasPasswordEnabledUser(accounts, next.local_groups, -1)) {
      errors.push([
        'privilege_update.local_groups',
        'None of the members of these groups has password login enabled. At least one grantee of the "Local Administrator" privilege must have password login enabled.',
        ERRNO.EINVAL,
      ]);
    }
    if (existing.builtin_name === 'READONLY_ADMINISTRATOR' && next.web_shell) {
      errors.push([
        'privilege_update.web_shell',
        'Web shell access may not be enabled for the built-in group for read-only administrators.',
        ERRNO.EINVAL,
      ]);
    }
  }
  return errors;
}

function entryOf(appliance: Appliance, id: number): PrivilegeEntry {
  const accounts = appliance.accounts();
  const p = accounts.privileges.find((x) => x.id === id);
  if (!p) throw rpcErrors.instanceNotFound('Privilege', id);
  return accounts.privilegeEntry(p);
}

export const privilegeMethods = [
  implement(privilegeContract['privilege.query'], ({ appliance }, filters, options) => {
    const accounts = appliance.accounts();
    return query(
      accounts.privileges.map((p) => accounts.privilegeEntry(p)),
      filters,
      options,
    );
  }),
  implement(privilegeContract['privilege.get_instance'], ({ appliance }, id) => entryOf(appliance, id)),
  implement(privilegeContract['privilege.create'], ({ appliance }, data) => {
    const { store } = appliance;
    const id = store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const next = { builtin_name: null, ...data };
      const errors = validatePrivilege(appliance, accounts, 'privilege_create', next, null);
      if (errors.length > 0) throw rpcErrors.validation(errors);
      return insertPrivilege(store.db, next);
    });
    return entryOf(appliance, id);
  }),
  implement(privilegeContract['privilege.update'], ({ appliance }, id, data) => {
    const { store } = appliance;
    store.write(() => {
      const existing = findPrivilege(store.db, id);
      if (!existing) throw rpcErrors.instanceNotFound('Privilege', id);
      const defined = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
      const next: PrivilegeRecord = { ...existing, ...defined };
      const errors = validatePrivilege(appliance, AccountsSnapshot.load(store.db), 'privilege_update', next, existing);
      if (errors.length > 0) throw rpcErrors.validation(errors);
      updatePrivilege(store.db, next);
    });
    return entryOf(appliance, id);
  }),
  implement(privilegeContract['privilege.delete'], ({ appliance: { store } }, id) =>
    store.write(() => {
      const existing = findPrivilege(store.db, id);
      if (!existing) throw rpcErrors.instanceNotFound('Privilege', id);
      if (existing.builtin_name) throw privilegeDeleteRefusal.builtin();
      deletePrivilege(store.db, id);
      return true;
    }),
  ),
  implement(privilegeContract['privilege.roles'], ({ appliance: { catalogue } }, filters, options) => {
    const entries = catalogue.names.map((name) => {
      const role = catalogue.get(name)!;
      return { name, title: name, includes: [...role.includes], builtin: role.builtin, stig: role.stig };
    });
    return query(entries, filters, options);
  }),
];
