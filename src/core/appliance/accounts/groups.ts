import { ERRNO, rpcErrors } from '../../errors.js';
import { groupDeleteRefusal } from '../../refusals/accounts.js';
import { deleteGroup, insertGroup } from '../../store/groups.js';
import type { Db } from '../../store/store.js';
import { deleteUser, reassignPrimaryGroup } from '../../store/users.js';
import type { AccountsSnapshot } from './accounts.js';
import { BASE_SYNTHETIC_DATASTORE_ID, refuseIfPrivilegeUsesGroup } from './checks.js';

/** Lowest free id ≥ 3000 (`MIN_AUTO_XID`), skipping `taken`. */
export function nextFreeId(taken: Iterable<number>, min = 3000): number {
  const used = new Set(taken);
  let id = min;
  while (used.has(id)) id++;
  return id;
}

/** The gids a new local group may not take: every group's and every gid a privilege names (`privilege.used_local_gids`, MW/plugins/account.py:2196-2200). */
export function takenGids(accounts: AccountsSnapshot): number[] {
  return [...accounts.groups.map((g) => g.gid), ...accounts.privileges.flatMap((p) => p.local_groups)];
}

/** A group of a directory service (an id past the local range) is not the emulator's to change. */
export function refuseDirectoryGroup(id: number, verb: 'modified through' | 'deleted from'): void {
  if (id > BASE_SYNTHETIC_DATASTORE_ID) {
    throw rpcErrors.call(
      ERRNO.EPERM,
      `Groups provided by a directory service must be ${verb} the identity provider (LDAP server or domain controller).`,
    );
  }
}

/** gid of `nogroup`, a builtin group of the appliance's OS image. */
const NOGROUP_GID = 65534;

/**
 * `nogroup`, where group.delete moves the users whose primary group it deletes
 * (MW/plugins/account.py:2170-2180). The appliance has it from its OS image; the emulator's seed
 * (docs/ENVIRONMENT.md "Where state lives") does not, so it appears the first time it is needed.
 */
function nogroupId(db: Db, accounts: AccountsSnapshot): number {
  return (
    accounts.groups.find((g) => g.name === 'nogroup')?.id ??
    insertGroup(db, {
      gid: NOGROUP_GID,
      name: 'nogroup',
      builtin: true,
      smb: false,
      sudo_commands: [],
      sudo_commands_nopasswd: [],
      userns_idmap: null,
    })
  );
}

/** `group.do_delete` (MW/plugins/account.py:2140-2195) inside a write; user.delete uses it for the primary group. */
export function deleteGroupChecked(db: Db, accounts: AccountsSnapshot, id: number, deleteUsers: boolean): number {
  refuseDirectoryGroup(id, 'deleted from');
  const group = accounts.groupById.get(id);
  if (!group) throw rpcErrors.instanceNotFound('Group', id);
  if (group.builtin) throw groupDeleteRefusal.builtin();
  refuseIfPrivilegeUsesGroup(accounts, group);
  if (deleteUsers) {
    for (const u of accounts.users.filter((x) => x.group_id === id)) deleteUser(db, u.id);
  } else {
    reassignPrimaryGroup(db, id, nogroupId(db, accounts));
  }
  deleteGroup(db, id);
  return id;
}
