import { basename } from 'node:path';
import { userContract, type UserCreate, type UserUpdate } from '../../contract/user.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { userDeleteRefusal } from '../../refusals/accounts.js';
import { deleteGroup, insertGroup } from '../../store/groups.js';
import { ADMIN_UID, GID } from '../../store/seed.js';
import { generateKeySecret, hashSecret } from '../../store/secrets.js';
import { readTwoFactorConfig, readUserTwoFactor, writeUserTwoFactor } from '../../store/twofactor.js';
import { homeOf, setUpHome } from '../accounts/home.js';
import { setPassword } from '../accounts/set-password.js';
import { generateTotpSecret } from '../accounts/totp.js';
import { readUserSecret, userTwoFactorConfig } from '../accounts/two-factor.js';
import { pyRepr } from '../query/python.js';
import { deleteUser, insertUser, updateUser, type UserRecord } from '../../store/users.js';
import type { Db } from '../../store/store.js';
import {
  BASE_SYNTHETIC_DATASTORE_ID,
  DEFAULT_HOME_PATH,
  NO_LOGIN_SHELL,
  deactivationRefusal,
  shellChoices,
  validateFullName,
  validateGroupIds,
  validateRootGroups,
  validateHome,
  validateHomeMode,
  validateSudoCommands,
} from '../accounts/checks.js';
import { AccountsSnapshot, type UserEntry } from '../accounts/accounts.js';
import type { Appliance } from '../appliance.js';
import { deleteGroupChecked, takenGids } from '../accounts/groups.js';
import { reservedGids, reservedUids, type ReservedIds } from '../accounts/reserved-ids.js';
import { publishEvent } from '../crud-events.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';

// The handlers of contract/user.ts, as `MW/plugins/account.py` (UserService) and, for the
// two-factor secret, `MW/plugins/account_/2fa.py` answer them.

/** The names shell_choices gives the shells that are not named for their file (MW/plugins/account.py:1128-1134). */
const SHELL_NAMES: Record<string, string> = {
  [NO_LOGIN_SHELL]: 'nologin',
  '/usr/bin/cli': 'TrueNAS CLI',
  '/usr/bin/cli_console': 'TrueNAS Console',
};

/** `CONTAINER_ROOT_UID` (MW/plugins/account_/constants.py). */
const CONTAINER_ROOT_UID = 2_147_000_001;

/**
 * The synthetic account user.query always appends: `idmap.synthetic_user(SYNTHETIC_CONTAINER_ROOT)`
 * then `builtin, local, locked` true and `smb` false (MW/plugins/account.py:444-448, MW/plugins/idmap.py:426-463).
 */
const CONTAINER_ROOT_ENTRY: UserEntry = {
  id: BASE_SYNTHETIC_DATASTORE_ID + CONTAINER_ROOT_UID,
  uid: CONTAINER_ROOT_UID,
  username: 'truenas_container_unpriv_root',
  unixhash: null,
  smbhash: null,
  home: DEFAULT_HOME_PATH,
  shell: NO_LOGIN_SHELL,
  full_name: 'Unprivileged root user for containers',
  builtin: true,
  smb: false,
  userns_idmap: null,
  group: {},
  groups: [],
  password_disabled: false,
  ssh_password_enabled: false,
  sshpubkey: null,
  locked: true,
  sudo_commands: [],
  sudo_commands_nopasswd: [],
  email: null,
  local: true,
  immutable: true,
  twofactor_auth_configured: false,
  sid: null,
  last_password_change: null,
  password_age: null,
  password_history: null,
  password_change_required: false,
  roles: [],
  api_keys: [],
};

/** Whether results show `Secret` fields to this caller: FULL_ADMIN or ACCOUNT_WRITE (MW/main.py:834-845). */
export function exposesAccountSecrets(ctx: CallContext): boolean {
  return ctx.session.isFullAdmin || ctx.session.hasRole('ACCOUNT_WRITE');
}

/** Every entry user.query knows, local users first, then the synthetic one. */
function userEntries(ctx: CallContext): UserEntry[] {
  const accounts = ctx.appliance.accounts();
  const expose = exposesAccountSecrets(ctx);
  return [...accounts.users.map((u) => accounts.userEntry(u, expose)), { ...CONTAINER_ROOT_ENTRY }];
}

function entryOf(ctx: CallContext, id: number): UserEntry {
  const accounts = ctx.appliance.accounts();
  const user = accounts.users.find((u) => u.id === id);
  if (!user) throw rpcErrors.instanceNotFound('User', id);
  return accounts.userEntry(user, exposesAccountSecrets(ctx));
}

type Schema = 'user_create' | 'user_update';

/**
 * `user.common_validation` (MW/plugins/account.py:1444-1682), in its order, for the checks that need
 * no file system or SMB backend (the emulated SMB backend is always configured; no password
 * complexity rules are set).
 */
function commonValidation(
  db: Db,
  accounts: AccountsSnapshot,
  pools: readonly string[],
  schema: Schema,
  data: UserUpdate & { uid?: number | null },
  groupIds: readonly number[],
  old: UserRecord | null,
  rootGroupRules = false,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const at = (field: string) => `${schema}.${field}`;
  const add = (field: string, message: string, errno: number = ERRNO.EINVAL) =>
    errors.push([at(field), message, errno]);
  const others = accounts.users.filter((u) => u.id !== old?.id);
  const combined = {
    smb: data.smb ?? old?.smb ?? true,
    password_disabled: data.password_disabled ?? old?.password_disabled ?? false,
    ssh_password_enabled: data.ssh_password_enabled ?? old?.ssh_password_enabled ?? false,
    home: data.home ?? old?.home ?? DEFAULT_HOME_PATH,
    shell: data.shell ?? old?.shell ?? '/usr/bin/zsh',
  };

  if (data.userns_idmap) {
    const privileged = groupIds.some((id) => {
      const g = accounts.groupById.get(id);
      return g !== undefined && accounts.privilegesForGids([g.gid]).some((p) => p.roles.length > 0);
    });
    if (privileged) add('userns_idmap', 'User namespace idmaps may not be configured for privileged accounts.');
  }
  if (data.random_password && data.password) {
    add(
      'random_password',
      'Requesting a randomized password while simultaneously supplying an explicit password is not permitted.',
    );
  }
  if (data.uid !== undefined && data.uid !== null) {
    const owner = accounts.users.find((u) => u.uid === data.uid);
    if (owner) add('uid', `Uid ${data.uid} is already used (user ${owner.username} has it)`, ERRNO.EEXIST);
  }
  if (data.username !== undefined) {
    if (others.some((u) => u.username === data.username))
      add('username', `The username "${data.username}" already exists.`, ERRNO.EEXIST);
    const folded = data.username.toLowerCase();
    if (data.smb && others.some((u) => u.smb && u.username.toLowerCase() === folded)) {
      add(
        'smb',
        `Username "${data.username}" conflicts with existing SMB user. Note that SMB usernames are case-insensitive.`,
        ERRNO.EEXIST,
      );
    }
  }
  if (combined.smb && combined.password_disabled)
    add('password_disabled', 'Password authentication may not be disabled for SMB users.');
  const password = data.password || (data.random_password ? 'random' : null);
  if (!old && !password && !data.password_disabled) add('password', 'Password is required');
  else if (data.password_disabled && password)
    add('password_disabled', 'Leave "Password" blank when "Disable password login" is checked.');

  if (data.home !== undefined) {
    const usable = validateHome(at('home'), { home: data.home, home_create: data.home_create }, others, pools, errors);
    if (!usable && combined.ssh_password_enabled) add('home', 'SSH password login requires a valid home path.');
  }
  if (data.home_mode !== undefined) errors.push(...validateHomeMode(at('home_mode'), data.home_mode));
  if (data.groups !== undefined) errors.push(...validateGroupIds(at, data.groups, accounts));
  if (old?.uid === 0) {
    // `webshare` is an input of 26's user.update only (its contract refuses it elsewhere): stable/26 MW/plugins/account.py:1724-1729.
    if ((data as { webshare?: boolean }).webshare) add('webshare', 'The root user is not allowed access via webshare.');
    if (rootGroupRules && data.groups !== undefined)
      errors.push(...validateRootGroups(at('groups'), data.groups, accounts));
  }
  if (data.full_name !== undefined) errors.push(...validateFullName(at('full_name'), data.full_name));
  if (data.shell !== undefined) {
    if (!shellChoices(accounts, groupIds).includes(data.shell)) add('shell', 'Please select a valid shell.');
    else if (combined.ssh_password_enabled && data.shell === NO_LOGIN_SHELL)
      add('shell', 'SSH password login requires a login shell.');
  }
  if (data.sudo_commands !== undefined) errors.push(...validateSudoCommands(at('sudo_commands'), data.sudo_commands));
  if (data.sudo_commands_nopasswd !== undefined) {
    errors.push(...validateSudoCommands(at('sudo_commands_nopasswd'), data.sudo_commands_nopasswd));
  }
  if (data.ssh_password_enabled) {
    const twofactor = readTwoFactorConfig(db);
    if (twofactor.enabled && twofactor.services.ssh && !(old && accounts.hasTwoFactorSecret(old))) {
      const base = '2FA for this user needs to be explicitly configured before password based SSH access is enabled.';
      add(
        'ssh_password_enabled',
        old
          ? base
          : `${base} User will be created with SSH password access disabled and after 2FA has been configured for this user, SSH password access can be enabled.`,
      );
    }
    if (combined.home === DEFAULT_HOME_PATH || combined.shell === NO_LOGIN_SHELL) {
      add('ssh_password_enabled', 'Cannot be enabled without a valid home path and login shell.');
    }
  }
  return errors;
}

/** `do_create`'s own checks around common_validation (MW/plugins/account.py:628-650). */
function validateCreate(
  db: Db,
  accounts: AccountsSnapshot,
  pools: readonly string[],
  data: UserCreate,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  if ((!data.group && !data.group_create) || (data.group !== null && data.group_create)) {
    errors.push(['user_create.group', 'Enter either a group name or create a new group to continue.', ERRNO.EINVAL]);
  }
  const groupIds = [...(data.group ? [data.group] : []), ...data.groups];
  errors.push(...commonValidation(db, accounts, pools, 'user_create', data, groupIds, null));
  if (data.sshpubkey && !data.home.startsWith('/mnt')) {
    errors.push([
      'user_create.sshpubkey',
      `${data.home}: the user home directory must be set to a writable path located within a data pool.`,
      ERRNO.EINVAL,
    ]);
  }
  return errors;
}

/** `do_update`'s checks (MW/plugins/account.py:790-905), phase by phase as it raises them. */
function validateUpdate(ctx: CallContext, accounts: AccountsSnapshot, old: UserRecord, data: UserUpdate): void {
  const { db } = ctx.appliance.store;
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string, errno: number = ERRNO.EINVAL) =>
    errors.push([`user_update.${field}`, message, errno]);
  if (data.password_disabled) {
    const refusal = deactivationRefusal(
      accounts,
      old,
      'After disabling password for this user no password-enabled local user',
    );
    if (refusal) add('password_disabled', refusal);
  }
  if (data.group === null) add('group', 'User must have a primary group');
  else if (data.group !== undefined && !accounts.groupById.has(data.group))
    add('group', `Group ${data.group} not found`, ERRNO.ENOENT);
  if (errors.length > 0) throw rpcErrors.validation(errors);

  const sameUser = ctx.session.credentials?.username === old.username;
  if (sameUser && readTwoFactorConfig(db).enabled && !accounts.hasTwoFactorSecret(old)) {
    add('renew_twofactor_secret', 'Two-factor authentication is enabled globally but not configured for this user.');
  }
  if (data.locked === true) {
    const adminsLeft = accounts.users.filter(
      (u) => u.id !== old.id && !u.locked && accounts.rolesOf(u).includes('FULL_ADMIN'),
    );
    if (adminsLeft.length === 0) add('locked', 'After locking this user no local users will have FULL_ADMIN role');
  }
  const groupIds = [data.group ?? old.group_id, ...(data.groups?.length ? data.groups : old.groups)];
  errors.push(
    ...commonValidation(
      db,
      accounts,
      ctx.appliance.pools(),
      'user_update',
      data,
      groupIds,
      old,
      ctx.appliance.release.rootGroupRules,
    ),
  );
  const home = data.home || old.home;
  const inPool = ctx.appliance.pools().some((p) => home === `/mnt/${p}` || home.startsWith(`/mnt/${p}/`));
  if (data.sshpubkey && !(old.uid === 0 || old.uid === ADMIN_UID || inPool)) {
    add('sshpubkey', 'Home directory is not writable, leave this blank"');
  }
  if (old.builtin || old.uid === ADMIN_UID) {
    if (data.home_mode !== undefined) add('home_mode', 'This attribute cannot be changed');
    // `group` is compared with the stored group object, so any value counts as a change.
    if (data.group !== undefined) add('group', 'This attribute cannot be changed');
    const current = { home: old.home, username: old.username, smb: old.smb, userns_idmap: old.userns_idmap };
    for (const key of Object.keys(current) as (keyof typeof current)[]) {
      if (data[key] !== undefined && data[key] !== current[key]) add(key, 'This attribute cannot be changed');
    }
  }
  if (!old.smb && data.smb && !data.password)
    add('smb', 'Password must be reset in order to enable SMB authentication');
  if (errors.length > 0) throw rpcErrors.validation(errors);
}

/** A user.create group_create: the local group named like the user, or a new one (MW/plugins/account.py:656-675). */
function primaryGroupFor(db: Db, accounts: AccountsSnapshot, username: string, held: ReservedIds): number {
  const existing = accounts.groups.find((g) => g.name === username);
  if (existing) return existing.id;
  // group.create_internal: `get_next_gid`, the gid no longer held once saved (MW/plugins/account.py:2028-2040).
  const gid = held.next(takenGids(accounts));
  held.release(gid);
  return insertGroup(db, {
    gid,
    name: username,
    builtin: false,
    smb: false,
    sudo_commands: [],
    sudo_commands_nopasswd: [],
    userns_idmap: null,
  });
}

function refuseDirectoryUser(id: number, verb: 'modified through' | 'deleted from'): void {
  if (id > BASE_SYNTHETIC_DATASTORE_ID) {
    throw rpcErrors.call(
      ERRNO.EPERM,
      `Users provided by a directory service must be ${verb} the identity provider (LDAP server or domain controller).`,
    );
  }
}

/** The new user's id, and the id of the group made for it (`group_create`), if one was. */
function createUser(
  appliance: Appliance,
  data: UserCreate,
  password: string | null,
  passwordHash: string | null,
): { id: number; madeGroup: number | null } {
  const { store } = appliance;
  return store.write(() => {
    const accounts = AccountsSnapshot.load(store.db);
    const errors = validateCreate(store.db, accounts, appliance.pools(), data);
    if (errors.length > 0) throw rpcErrors.validation(errors);
    // The primary group is looked up only once the rest passed (MW/plugins/account.py:676-682).
    if (!data.group_create && !accounts.groupById.has(data.group!)) {
      throw rpcErrors.validation([['user_create.group', `Group ${data.group} not found`, ERRNO.ENOENT]]);
    }
    // `get_next_uid` passes over uids it handed out; the uid used, given or not, is no longer held (MW/plugins/account.py:683-684, 731-732).
    const heldUids = reservedUids(appliance);
    const uid = data.uid ?? heldUids.next(localUids(accounts));
    heldUids.release(uid);
    const groupId = data.group_create
      ? primaryGroupFor(store.db, accounts, data.username, reservedGids(appliance))
      : data.group!;
    const madeGroup = data.group_create && !accounts.groupById.has(groupId) ? groupId : null;
    const groups = [...data.groups];
    const builtinUsers = accounts.groupByGid.get(GID.builtin_users);
    if (data.smb && builtinUsers) groups.push(builtinUsers.id);
    const id = insertUser(store.db, {
      uid,
      username: data.username,
      full_name: data.full_name,
      home: homeOf(data),
      shell: data.shell,
      group_id: groupId,
      groups,
      builtin: false,
      smb: data.smb,
      password_disabled: data.password_disabled,
      password_hash: passwordHash,
      locked: data.locked,
      email: data.email,
      sshpubkey: data.sshpubkey,
      ssh_password_enabled: data.ssh_password_enabled,
      sudo_commands: data.sudo_commands,
      sudo_commands_nopasswd: data.sudo_commands_nopasswd,
      userns_idmap: data.userns_idmap,
      last_password_change: password === null ? null : Date.now(),
    });
    return { id, madeGroup };
  });
}

/** The uids `get_next_uid` counts as taken: local users not built in (MW/plugins/account.py:1260-1263). */
function localUids(accounts: AccountsSnapshot): number[] {
  return accounts.users.filter((u) => !u.builtin).map((u) => u.uid);
}

/** `user.translate_username`: the local user of that name, or the CallError 25.10.1 raises. */
function translateUsername(accounts: AccountsSnapshot, username: string): UserRecord {
  const user = accounts.users.find((u) => u.username === username);
  if (!user) throw rpcErrors.call(ERRNO.ENOENT, `User ${pyRepr(username)} does not exist`);
  return user;
}

/** `app_credential_full_admin_or_user` (MW/utils/privilege.py): FULL_ADMIN (wildcard allowlist) or that very user. */
function fullAdminOrUser(ctx: CallContext, username: string): boolean {
  return ctx.session.isFullAdmin || ctx.session.credentials?.username === username;
}

export const userMethods = [
  implement(userContract['user.query'], (ctx, filters, options) => query(userEntries(ctx), filters, options)),
  implement(userContract['user.get_instance'], (ctx, id, options) =>
    getInstance(userEntries(ctx), id, options, 'User'),
  ),
  implement(userContract['user.create'], async (ctx, data) => {
    const password = data.random_password && !data.password ? generateKeySecret(20) : data.password;
    // Hash outside the write lock: it is the slow part and needs no database state.
    const passwordHash = password === null ? null : await hashSecret(password);
    // Validation, uid allocation and insert share one IMMEDIATE transaction: two processes
    // creating users at once queue here and never pick the same uid.
    const { id, madeGroup } = createUser(ctx.appliance, data, password, passwordHash);
    const entry = entryOf(ctx, id);
    // 25.10.1 sets the home up before it saves the user, and on failure removes the group it made
    // (MW/plugins/account.py:686-703); here the user is saved first, so it goes too.
    await setUpHome(
      ctx.appliance,
      entry.home,
      data.home_create,
      data.home_mode,
      entry.uid,
      (entry.group as { bsdgrp_gid?: number }).bsdgrp_gid ?? -1,
    ).catch((err: unknown) => {
      ctx.appliance.store.write(() => {
        deleteUser(ctx.appliance.store.db, id);
        if (madeGroup !== null) deleteGroup(ctx.appliance.store.db, madeGroup);
      });
      throw err;
    });
    return { ...entry, password };
  }),
  implement(userContract['user.update'], async (ctx, id, data) => {
    refuseDirectoryUser(id, 'modified through');
    const { store } = ctx.appliance;
    const password = data.random_password && !data.password ? generateKeySecret(20) : (data.password ?? null);
    // Hashed before the write lock, as in user.create: it is the slow part.
    const passwordHash = password === null ? null : await hashSecret(password);
    store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const old = accounts.users.find((u) => u.id === id);
      if (!old) throw rpcErrors.instanceNotFound('User', id);
      validateUpdate(ctx, accounts, old, data);
      const { id: _id, ...current } = old;
      updateUser(store.db, id, {
        ...current,
        username: data.username ?? old.username,
        full_name: data.full_name ?? old.full_name,
        home: data.home ?? old.home,
        shell: data.shell ?? old.shell,
        group_id: data.group ?? old.group_id,
        groups: data.groups ?? old.groups,
        smb: data.smb ?? old.smb,
        password_disabled: data.password_disabled ?? old.password_disabled,
        password_hash: passwordHash ?? old.password_hash,
        locked: data.locked ?? old.locked,
        email: data.email !== undefined ? data.email : old.email,
        sshpubkey: data.sshpubkey !== undefined ? data.sshpubkey : old.sshpubkey,
        ssh_password_enabled: data.ssh_password_enabled ?? old.ssh_password_enabled,
        sudo_commands: data.sudo_commands ?? old.sudo_commands,
        sudo_commands_nopasswd: data.sudo_commands_nopasswd ?? old.sudo_commands_nopasswd,
        userns_idmap: data.userns_idmap !== undefined ? data.userns_idmap : old.userns_idmap,
        last_password_change: password === null ? old.last_password_change : Date.now(),
      });
    });
    return { ...entryOf(ctx, id), password };
  }),
  implement(userContract['user.delete'], (ctx, id, options) => {
    refuseDirectoryUser(id, 'deleted from');
    const { store } = ctx.appliance;
    const groupDeleted = store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const user = accounts.users.find((u) => u.id === id);
      if (!user) throw rpcErrors.instanceNotFound('User', id);
      if (ctx.session.credentials?.username === user.username) throw userDeleteRefusal.activeUser();
      if (user.builtin) throw userDeleteRefusal.builtin();
      if (user.uid === ADMIN_UID) throw userDeleteRefusal.immutable();
      const refusal = deactivationRefusal(accounts, user, 'After deleting this user no local user');
      if (refusal) throw rpcErrors.call(ERRNO.EACCES, refusal);
      deleteUser(store.db, id);
      const primary = accounts.groupById.get(user.group_id);
      const stillUsed = accounts.users.some(
        (u) => u.id !== id && (u.group_id === user.group_id || u.groups.includes(user.group_id)),
      );
      if (options.delete_group && primary && !primary.builtin && !stillUsed) {
        // 25.10.1 logs and carries on when the group cannot go (e.g. a privilege uses it).
        try {
          deleteGroupChecked(store.db, AccountsSnapshot.load(store.db), primary.id, false);
          return primary.id;
        } catch {
          // the user is deleted either way
        }
      }
      return null;
    });
    // The primary group goes through `group.delete` (MW/plugins/account.py:1071-1072), whose
    // CRUD wrapper sends its REMOVED before this call's own.
    if (groupDeleted !== null)
      publishEvent(ctx.appliance, 'group.delete', [groupDeleted, { delete_users: false }], groupDeleted);
    return id;
  }),
  implement(userContract['user.renew_2fa_secret'], (ctx, username, options) => {
    if (!fullAdminOrUser(ctx, username)) {
      throw rpcErrors.call(
        ERRNO.EPERM,
        `${username}: currently authenticated credential may not renew two-factor authentication for this user.`,
      );
    }
    const { store } = ctx.appliance;
    const user = store.write(() => {
      const target = translateUsername(AccountsSnapshot.load(store.db), username);
      const old = readUserTwoFactor(store.db, target.id);
      writeUserTwoFactor(store.db, target.id, {
        secret: generateTotpSecret(),
        interval: options.interval ?? old.interval,
        otp_digits: options.otp_digits ?? old.otp_digits,
      });
      return target;
    });
    const accounts = ctx.appliance.accounts();
    const entry = accounts.userEntry(user, exposesAccountSecrets(ctx));
    return { ...entry, twofactor_config: userTwoFactorConfig(user, readUserSecret(ctx.appliance, user.id)) };
  }),
  implement(userContract['user.set_password'], (ctx, data) => setPassword(ctx, data)),
  // MW/plugins/account.py:1253-1276.
  implement(userContract['user.get_next_uid'], ({ appliance }) =>
    reservedUids(appliance).reserve(localUids(appliance.accounts())),
  ),
  // MW/plugins/account.py:1112-1144: a dict, nologin first, the CLI shells for privileged groups, then /etc/shells' /usr/bin entries.
  implement(userContract['user.shell_choices'], ({ appliance }, groupIds) =>
    Object.fromEntries(
      shellChoices(appliance.accounts(), groupIds).map((path) => [path, SHELL_NAMES[path] ?? basename(path)]),
    ),
  ),
  implement(userContract['user.unset_2fa_secret'], ({ appliance }, username) => {
    const { store } = appliance;
    store.write(() => {
      const user = translateUsername(AccountsSnapshot.load(store.db), username);
      writeUserTwoFactor(store.db, user.id, { ...readUserTwoFactor(store.db, user.id), secret: null });
    });
    return null;
  }),
];
