import { z } from 'zod';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { insertGroup } from '../store/groups.js';
import { GID } from '../store/seed.js';
import { generateKeySecret, hashSecret } from '../store/secrets.js';
import { insertUser, updateUser, type UserRecord } from '../store/users.js';
import { ALLOWED_BUILTIN_GIDS, AccountsSnapshot } from './accounts.js';
import { nextFreeId } from './group.js';
import { defineMethod, roles } from './method.js';
import { nonEmptyStr, str } from './params.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';

/** UserCreate's fields as user.update takes them (UserUpdate: optional, no defaults, no uid or group_create). */
const updatable = {
  username: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z_][A-Za-z0-9_.-]*\$?$/, 'Valid characters are [A-Za-z0-9_.-], starting with a letter or underscore'),
  full_name: nonEmptyStr(),
  group: z.int().nullable(),
  groups: z.array(z.int()).max(64),
  password: str().nullable(),
  random_password: z.boolean(),
  password_disabled: z.boolean(),
  smb: z.boolean(),
  home: str(),
  home_create: z.boolean(),
  home_mode: str(),
  shell: str(),
  email: str().nullable(),
  ssh_password_enabled: z.boolean(),
  sshpubkey: str(8192).nullable(),
  locked: z.boolean(),
  sudo_commands: z.array(z.string()),
  sudo_commands_nopasswd: z.array(z.string()),
  userns_idmap: z.union([z.literal('DIRECT'), z.int(), z.null()]),
};

const userCreate = z.strictObject({
  username: updatable.username,
  full_name: updatable.full_name,
  uid: z.int().min(0).max(90_000_000).nullable().default(null),
  group_create: z.boolean().default(false),
  group: updatable.group.default(null),
  groups: updatable.groups.default([]),
  password: updatable.password.default(null),
  random_password: updatable.random_password.default(false),
  password_disabled: updatable.password_disabled.default(false),
  smb: updatable.smb.default(true),
  home: updatable.home.default('/var/empty'),
  home_create: updatable.home_create.default(false),
  home_mode: updatable.home_mode.default('700'),
  shell: updatable.shell.default('/usr/bin/zsh'),
  email: updatable.email.default(null),
  ssh_password_enabled: updatable.ssh_password_enabled.default(false),
  sshpubkey: updatable.sshpubkey.default(null),
  locked: updatable.locked.default(false),
  sudo_commands: updatable.sudo_commands.default([]),
  sudo_commands_nopasswd: updatable.sudo_commands_nopasswd.default([]),
  userns_idmap: updatable.userns_idmap.default(null),
});

const userUpdate = z.strictObject(updatable).partial();

type UserCreate = z.output<typeof userCreate>;

/** Supplementary groups: each must exist, and builtin ones only where 25.10.1 allows (ALLOWED_BUILTIN_GIDS). */
function validateGroups(at: (field: string) => string, groups: readonly number[], accounts: AccountsSnapshot): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  groups.forEach((id, i) => {
    const g = accounts.groupById.get(id);
    if (!g) errors.push([at(`groups.${i}`), 'This group does not exist.', ERRNO.EINVAL]);
    else if (g.builtin && !ALLOWED_BUILTIN_GIDS.has(g.gid)) {
      errors.push([at(`groups.${i}`), `${g.name}: membership of this builtin group may not be altered.`, ERRNO.EINVAL]);
    }
  });
  return errors;
}

/** The password rules create and update share (MW/plugins/account.py:1463-1576). */
function validatePassword(
  at: (field: string) => string,
  data: { password?: string | null; random_password?: boolean; password_disabled?: boolean },
  combined: { password_disabled: boolean; smb: boolean },
  creating: boolean,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  if (data.random_password && data.password) {
    errors.push([
      at('random_password'),
      'Requesting a randomized password while simultaneously supplying an explicit password is not permitted.',
      ERRNO.EINVAL,
    ]);
  }
  if (combined.smb && combined.password_disabled) {
    errors.push([at('password_disabled'), 'Password authentication may not be disabled for SMB users.', ERRNO.EINVAL]);
  }
  if (creating && !data.password && !data.password_disabled && !data.random_password) {
    errors.push([at('password'), 'Password is required', ERRNO.EINVAL]);
  } else if (data.password_disabled && data.password) {
    errors.push([at('password_disabled'), 'Leave "Password" blank when "Disable password login" is checked.', ERRNO.EINVAL]);
  }
  return errors;
}

function validateCreate(data: UserCreate, accounts: AccountsSnapshot): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const at = (field: string) => `user_create.${field}`;
  if (data.full_name.includes(':') || data.full_name.includes('\n')) errors.push([at('full_name'), "The ':' character is not allowed.", ERRNO.EINVAL]);
  if (accounts.users.some((u) => u.username === data.username)) {
    errors.push([at('username'), `The username "${data.username}" already exists.`, ERRNO.EEXIST]);
  }
  if (data.uid !== null) {
    const owner = accounts.users.find((u) => u.uid === data.uid);
    if (owner) errors.push([at('uid'), `Uid ${data.uid} is already used (user ${owner.username} has it)`, ERRNO.EEXIST]);
  }
  if ((data.group === null) === !data.group_create) {
    errors.push([at('group'), 'Enter either a group name or create a new group to continue.', ERRNO.EINVAL]);
  } else if (data.group !== null && !accounts.groupById.has(data.group)) {
    errors.push([at('group'), 'This group does not exist.', ERRNO.EINVAL]);
  }
  errors.push(...validateGroups(at, data.groups, accounts));
  errors.push(...validatePassword(at, data, data, true));
  return errors;
}

type UserUpdate = z.output<typeof userUpdate>;

function validateUpdate(old: UserRecord, data: UserUpdate, accounts: AccountsSnapshot): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const at = (field: string) => `user_update.${field}`;
  if (data.group === null) errors.push([at('group'), 'User must have a primary group', ERRNO.EINVAL]);
  else if (data.group !== undefined && !accounts.groupById.has(data.group)) {
    errors.push([at('group'), `Group ${data.group} not found`, ERRNO.ENOENT]);
  }
  // Builtin accounts and truenas_admin keep these (MW/plugins/account.py:875-882).
  if (old.builtin || old.uid === 950) {
    if (data.home_mode !== undefined) errors.push([at('home_mode'), 'This attribute cannot be changed', ERRNO.EINVAL]);
    const current = { group: old.group_id, home: old.home, username: old.username, smb: old.smb, userns_idmap: old.userns_idmap };
    for (const key of Object.keys(current) as (keyof typeof current)[]) {
      if (data[key] !== undefined && data[key] !== current[key]) errors.push([at(key), 'This attribute cannot be changed', ERRNO.EINVAL]);
    }
  }
  if (!old.smb && data.smb && !data.password) {
    errors.push([at('smb'), 'Password must be reset in order to enable SMB authentication', ERRNO.EINVAL]);
  }
  if (data.full_name !== undefined && (data.full_name.includes(':') || data.full_name.includes('\n'))) {
    errors.push([at('full_name'), "The ':' character is not allowed.", ERRNO.EINVAL]);
  }
  if (data.username !== undefined && accounts.users.some((u) => u.username === data.username && u.id !== old.id)) {
    errors.push([at('username'), `The username "${data.username}" already exists.`, ERRNO.EEXIST]);
  }
  if (data.groups !== undefined) errors.push(...validateGroups(at, data.groups, accounts));
  errors.push(...validatePassword(at, data, { password_disabled: data.password_disabled ?? old.password_disabled, smb: data.smb ?? old.smb }, false));
  return errors;
}

export const userMethods = [
  defineMethod({
    name: 'user.query',
    summary: 'List local users (filters, options).',
    access: roles('ACCOUNT_READ'),
    params: QUERY_PARAMS,
    handler: ({ appliance }, filters, options) => {
      const accounts = appliance.accounts();
      return query(accounts.users.map((u) => accounts.userEntry(u)), filters, options);
    },
  }),
  defineMethod({
    name: 'user.create',
    summary: 'Create a local user; returns the user entry plus `password`.',
    access: roles('ACCOUNT_WRITE'),
    params: [{ name: 'user_create', schema: userCreate }],
    handler: ({ appliance }, data) => {
      const { store } = appliance;
      const password = data.random_password ? generateKeySecret(20) : data.password;
      // Hash outside the write lock: it is the slow part and needs no database state.
      const passwordHash = password === null ? null : hashSecret(password);
      // Validation, uid allocation and insert share one IMMEDIATE transaction: two processes
      // creating users at once queue here and never pick the same uid.
      const id = store.write(() => {
        const accounts = AccountsSnapshot.load(store.db);
        const errors = validateCreate(data, accounts);
        if (errors.length > 0) throw rpcErrors.validation(errors);
        const uid = data.uid ?? nextFreeId(accounts.users.map((u) => u.uid));
        let groupId = data.group;
        if (data.group_create) {
          const existing = accounts.groups.find((g) => g.name === data.username);
          groupId =
            existing?.id ??
            insertGroup(store.db, {
              gid: nextFreeId([...accounts.groups.map((g) => g.gid), ...accounts.privileges.flatMap((p) => p.local_groups)]),
              name: data.username,
              builtin: false,
              smb: false,
              sudo_commands: [],
              sudo_commands_nopasswd: [],
              userns_idmap: null,
            });
        }
        const groups = [...data.groups];
        const builtinUsers = accounts.groupByGid.get(GID.builtin_users);
        if (data.smb && builtinUsers && !groups.includes(builtinUsers.id)) groups.push(builtinUsers.id);
        return insertUser(store.db, {
          uid,
          username: data.username,
          full_name: data.full_name,
          home: data.home,
          shell: data.shell,
          group_id: groupId!,
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
      });
      const accounts = appliance.accounts();
      const user = accounts.users.find((u) => u.id === id)!;
      return { ...accounts.userEntry(user), password };
    },
  }),
  defineMethod({
    name: 'user.update',
    summary: 'Change a local user by id; a new password is kept only as a salted hash. Returns the entry plus `password`.',
    access: roles('ACCOUNT_WRITE'),
    params: [
      { name: 'id', schema: z.int() },
      { name: 'user_update', schema: userUpdate },
    ],
    handler: ({ appliance }, id, data) => {
      const { store } = appliance;
      const password = data.random_password && !data.password ? generateKeySecret(20) : (data.password ?? null);
      // Hashed before the write lock, as in user.create: it is the slow part.
      const passwordHash = password === null ? null : hashSecret(password);
      store.write(() => {
        const accounts = AccountsSnapshot.load(store.db);
        const old = accounts.users.find((u) => u.id === id);
        if (!old) throw rpcErrors.instanceNotFound('User', id);
        const errors = validateUpdate(old, data, accounts);
        if (errors.length > 0) throw rpcErrors.validation(errors);
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
      const accounts = appliance.accounts();
      return { ...accounts.userEntry(accounts.users.find((u) => u.id === id)!), password };
    },
  }),
];
