import { groupContract, type GroupCreate, type GroupUpdate } from '../../contract/group.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { insertGroup, setGroupMembers, updateGroup, type GroupRecord } from '../../store/groups.js';
import type { Db } from '../../store/store.js';
import { BASE_SYNTHETIC_DATASTORE_ID, validateSudoCommands } from '../accounts/checks.js';
import { deleteGroupChecked, refuseDirectoryGroup, takenGids } from '../accounts/groups.js';
import { reservedGids, type ReservedIds } from '../accounts/reserved-ids.js';
import { ALLOWED_BUILTIN_GIDS, AccountsSnapshot, type GroupEntry } from '../accounts/accounts.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';

// The handlers of contract/group.ts, as `MW/plugins/account.py` (GroupService) answers them.

/** `SMBBuiltin` names (MW/plugins/smb_/constants.py): a mapped group may not take them. */
const SMB_BUILTIN_NAMES = ['ADMINISTRATORS', 'GUESTS', 'USERS'];

/** `group.__common_validation` (MW/plugins/account.py:2330-2440), in its order; `pk` on update. */
function commonValidation(
  accounts: AccountsSnapshot,
  data: GroupUpdate & { gid?: number | null },
  schema: string,
  pk: number | null,
  rootGroupRules: boolean,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string, errno: number = ERRNO.EINVAL) =>
    errors.push([`${schema}.${field}`, message, errno]);
  const others = accounts.groups.filter((g) => g.id !== pk);
  if (data.userns_idmap !== undefined && pk !== null) {
    const entry = accounts.groupById.get(pk)!;
    if (accounts.privilegesForGids([entry.gid]).some((p) => p.roles.length > 0)) {
      add('userns_idmap', 'User namespace idmaps may not be configured for privileged accounts.');
    }
    if (entry.builtin) add('userns_idmap', 'User namespace idmaps may not be configured for builtin accounts.');
  }
  if (data.name !== undefined) {
    const name = data.name;
    if (data.smb) {
      if (SMB_BUILTIN_NAMES.includes(name.toUpperCase())) {
        add(
          'name',
          `Group name "${name}" conflicts with existing SMB Builtin entry. SMB group mapping is not permitted for this group.`,
          ERRNO.EEXIST,
        );
      }
      if (others.some((g) => g.smb && g.name.toLowerCase() === name.toLowerCase())) {
        add(
          'name',
          `Group name "${name}" conflicts with existing groupmap entry. SMB group mapping is not permitted for this group. Note that SMB group names are case-insensitive.`,
          ERRNO.EEXIST,
        );
      }
    }
    if (others.some((g) => g.name === name))
      add('name', `A Group with the name "${name}" already exists.`, ERRNO.EEXIST);
  }
  if (data.gid !== undefined && data.gid !== null) {
    const owner = accounts.groupByGid.get(data.gid);
    if (owner) add('gid', `Gid ${data.gid} is already used (group ${owner.name} has it)`, ERRNO.EEXIST);
    const privilege = accounts.privileges.find((p) => p.local_groups.includes(data.gid!));
    if (privilege) add('gid', `A privilege '${privilege.name}' already uses this group ID.`);
  }
  const directoryUser = (data.users ?? []).findIndex((id) => id >= BASE_SYNTHETIC_DATASTORE_ID);
  if (directoryUser >= 0) {
    add(`users.${directoryUser}`, 'Directory services users may not be added as members of local groups.');
    return errors;
  }
  // From 25.10.2 on root joins no group but builtin_administrators, and never leaves that one
  // (TS-25.10.6 MW/plugins/account.py:2439-2451, 2485-2494; stable/26 :2620-2632, 2665-2674).
  const rootId = rootGroupRules ? accounts.users.find((u) => u.username === 'root')?.id : undefined;
  const builtinAdmins = pk !== null && accounts.groupById.get(pk)?.name === 'builtin_administrators';
  if (rootId !== undefined && data.users?.includes(rootId) && !builtinAdmins)
    add('users', 'Cannot add the root user to this group');
  if (data.users !== undefined) {
    const known = new Set(accounts.users.map((u) => u.id));
    const missing = [...new Set(data.users.filter((id) => !known.has(id)))].sort((a, b) => a - b);
    if (missing.length > 0) add('users', `Following users do not exist: ${missing.join(', ')}`);
    const kept = new Set(data.users);
    const primaryLeft = accounts.users.filter((u) => u.group_id === pk && !kept.has(u.id)).map((u) => u.username);
    if (primaryLeft.length > 0)
      add('users', `This group is primary for the following users: ${primaryLeft.join(', ')}. You can't remove them.`);
  }
  if (rootId !== undefined && builtinAdmins && data.users !== undefined && !data.users.includes(rootId)) {
    add('users', 'The root user must remain a member of the builtin_administrators group.');
  }
  if (data.sudo_commands !== undefined)
    errors.push(...validateSudoCommands(`${schema}.sudo_commands`, data.sudo_commands));
  if (data.sudo_commands_nopasswd !== undefined) {
    errors.push(...validateSudoCommands(`${schema}.sudo_commands_nopasswd`, data.sudo_commands_nopasswd));
  }
  return errors;
}

function validateUpdate(
  accounts: AccountsSnapshot,
  group: GroupRecord,
  data: GroupUpdate,
  rootGroupRules: boolean,
): ValidationTriple[] {
  const errors = commonValidation(accounts, data, 'group_update', group.id, rootGroupRules);
  if (group.builtin && !ALLOWED_BUILTIN_GIDS.has(group.gid)) {
    errors.push(['group_update.id', 'Immutable groups cannot be changed', ERRNO.EINVAL]);
  } else if (group.builtin) {
    for (const key of ['sudo_commands', 'sudo_commands_nopasswd', 'smb', 'name'] as const) {
      if (data[key] !== undefined && JSON.stringify(data[key]) !== JSON.stringify(group[key])) {
        errors.push([
          `group_update.${key}`,
          'This configuration parameter may not be changed for builtin groups.',
          ERRNO.EINVAL,
        ]);
      }
    }
  }
  return errors;
}

function groupEntries(ctx: CallContext): GroupEntry[] {
  const accounts = ctx.appliance.accounts();
  return accounts.groups.map((g) => accounts.groupEntry(g));
}

function createGroup(db: Db, data: GroupCreate, rootGroupRules: boolean, held: ReservedIds): number {
  const accounts = AccountsSnapshot.load(db);
  const errors = commonValidation(accounts, data, 'group_create', null, rootGroupRules);
  if (errors.length > 0) throw rpcErrors.validation(errors);
  // `get_next_gid` passes over gids it handed out; the one used is no longer held (MW/plugins/account.py:2028-2040).
  const gid = data.gid ?? held.next(takenGids(accounts));
  held.release(gid);
  const id = insertGroup(db, {
    gid,
    name: data.name,
    builtin: false,
    smb: data.smb,
    sudo_commands: data.sudo_commands,
    sudo_commands_nopasswd: data.sudo_commands_nopasswd,
    userns_idmap: data.userns_idmap,
  });
  setGroupMembers(db, id, data.users);
  return id;
}

export const groupMethods = [
  implement(groupContract['group.query'], (ctx, filters, options) => query(groupEntries(ctx), filters, options)),
  implement(groupContract['group.get_instance'], (ctx, id, options) =>
    getInstance(groupEntries(ctx), id, options, 'Group'),
  ),
  implement(groupContract['group.create'], ({ appliance }, data) =>
    appliance.store.write(() =>
      createGroup(appliance.store.db, data, appliance.release.rootGroupRules, reservedGids(appliance)),
    ),
  ),
  // MW/plugins/account.py:2190-2211.
  implement(groupContract['group.get_next_gid'], ({ appliance }) =>
    reservedGids(appliance).reserve(takenGids(appliance.accounts())),
  ),
  implement(groupContract['group.update'], ({ appliance }, id, data) => {
    const { store } = appliance;
    refuseDirectoryGroup(id, 'modified through');
    return store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const group = accounts.groupById.get(id);
      if (!group) throw rpcErrors.instanceNotFound('Group', id);
      const errors = validateUpdate(accounts, group, data, appliance.release.rootGroupRules);
      if (errors.length > 0) throw rpcErrors.validation(errors);
      const { id: _id, ...current } = group;
      updateGroup(store.db, id, {
        ...current,
        name: data.name ?? group.name,
        smb: data.smb ?? group.smb,
        sudo_commands: data.sudo_commands ?? group.sudo_commands,
        sudo_commands_nopasswd: data.sudo_commands_nopasswd ?? group.sudo_commands_nopasswd,
        userns_idmap: data.userns_idmap !== undefined ? data.userns_idmap : group.userns_idmap,
      });
      if (data.users !== undefined) {
        // Primary members are members through users.group_id, not membership rows (MW/plugins/account.py:2111-2120).
        const primary = new Set(accounts.users.filter((u) => u.group_id === id).map((u) => u.id));
        setGroupMembers(
          store.db,
          id,
          data.users.filter((u) => !primary.has(u)),
        );
      }
      return id;
    });
  }),
  implement(groupContract['group.delete'], ({ appliance: { store } }, id, options) =>
    store.write(() => deleteGroupChecked(store.db, AccountsSnapshot.load(store.db), id, options.delete_users)),
  ),
];
