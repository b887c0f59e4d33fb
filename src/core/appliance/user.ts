import { z } from 'zod';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { insertGroup } from '../store/groups.js';
import { GID } from '../store/seed.js';
import { generateKeySecret, hashSecret } from '../store/secrets.js';
import { insertUser } from '../store/users.js';
import { ALLOWED_BUILTIN_GIDS, AccountsSnapshot } from './accounts.js';
import { nextFreeId } from './group.js';
import { defineMethod, roles } from './method.js';
import { nonEmptyStr, str } from './params.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';

const userCreate = z.strictObject({
  username: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z_][A-Za-z0-9_.-]*\$?$/, 'Valid characters are [A-Za-z0-9_.-], starting with a letter or underscore'),
  full_name: nonEmptyStr(),
  uid: z.int().min(0).max(90_000_000).nullable().default(null),
  group_create: z.boolean().default(false),
  group: z.int().nullable().default(null),
  groups: z.array(z.int()).max(64).default([]),
  password: str().nullable().default(null),
  random_password: z.boolean().default(false),
  password_disabled: z.boolean().default(false),
  smb: z.boolean().default(true),
  home: str().default('/var/empty'),
  home_create: z.boolean().default(false),
  home_mode: str().default('700'),
  shell: str().default('/usr/bin/zsh'),
  email: str().nullable().default(null),
  ssh_password_enabled: z.boolean().default(false),
  sshpubkey: str(8192).nullable().default(null),
  locked: z.boolean().default(false),
  sudo_commands: z.array(z.string()).default([]),
  sudo_commands_nopasswd: z.array(z.string()).default([]),
  userns_idmap: z.union([z.literal('DIRECT'), z.int(), z.null()]).default(null),
});

type UserCreate = z.output<typeof userCreate>;

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
  data.groups.forEach((id, i) => {
    const g = accounts.groupById.get(id);
    if (!g) errors.push([at(`groups.${i}`), 'This group does not exist.', ERRNO.EINVAL]);
    else if (g.builtin && !ALLOWED_BUILTIN_GIDS.has(g.gid)) {
      errors.push([at(`groups.${i}`), `${g.name}: membership of this builtin group may not be altered.`, ERRNO.EINVAL]);
    }
  });
  if (data.password_disabled && data.password !== null) {
    errors.push([at('password_disabled'), 'Leave "Password" blank when "Disable password login" is checked.', ERRNO.EINVAL]);
  } else if (data.password_disabled && data.smb) {
    errors.push([at('password_disabled'), 'Password authentication may not be disabled for SMB users.', ERRNO.EINVAL]);
  } else if (!data.password_disabled && !data.random_password && data.password === null) {
    errors.push([at('password'), 'Password is required', ERRNO.EINVAL]);
  }
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
];
