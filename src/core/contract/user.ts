import * as z from 'zod';
import { LETTERS_AND_UNDERSCORE, emailStr, localXid, posixName, secret, usernsIdmap } from './accounts-common.js';
import { crud } from './crud.js';
import { ejsonDate } from './ejson.js';
import { PYDANTIC_DICT, modeledAs } from './json-schema.js';
import { AUTHENTICATED, nonEmptyStr, roles, str, once } from './method.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/user.py`; role prefix ACCOUNT (`MW/plugins/account.py` UserService.Config).

/** UserEntry. `group` is the primary group's raw database row (`id`, `bsdgrp_*`), `{}` for synthetic users. */
export const userEntry = once(() =>
  z.object({
    id: z.int(),
    uid: z.int(),
    username: z.string().min(1),
    unixhash: secret(z.string().nullable()),
    smbhash: secret(z.string().nullable()),
    home: z.string().min(1),
    shell: z.string().min(1),
    full_name: z.string(),
    builtin: z.boolean(),
    smb: z.boolean(),
    userns_idmap: usernsIdmap(),
    group: z.record(z.string(), z.unknown()),
    groups: z.array(z.int()),
    password_disabled: z.boolean(),
    ssh_password_enabled: z.boolean(),
    sshpubkey: z.string().nullable(),
    locked: z.boolean(),
    sudo_commands: z.array(z.string().min(1)),
    sudo_commands_nopasswd: z.array(z.string().min(1)),
    email: z.string().min(1).nullable(),
    local: z.boolean(),
    immutable: z.boolean(),
    twofactor_auth_configured: z.boolean(),
    sid: z.string().nullable(),
    last_password_change: ejsonDate().nullable(),
    password_age: z.int().nullable(),
    password_history: secret(z.array(z.unknown()).nullable()),
    password_change_required: z.boolean(),
    roles: z.array(z.string()),
    api_keys: z.array(z.int()),
  }),
);

/** UserCreateUpdateResult: the entry plus the password given or generated (`null` if none). */
const userCreateUpdateResult = once(() => userEntry().extend({ password: z.string().min(1).nullable() }));

/**
 * UserCreate's fields as user.update takes them too (UserUpdate: all optional, no uid or group_create).
 * UserCreate inherits from UserEntry: the fields it does not redefine are UserEntry's own.
 */
const updatable = once(() => ({
  username: posixName(LETTERS_AND_UNDERSCORE, 32),
  home: z.string().min(1),
  shell: z.string().min(1),
  full_name: z.string().min(1),
  smb: z.boolean(),
  userns_idmap: usernsIdmap(),
  group: z.int().nullable(),
  ...userEntry().pick({
    groups: true,
    password_disabled: true,
    ssh_password_enabled: true,
    sshpubkey: true,
    locked: true,
    sudo_commands: true,
    sudo_commands_nopasswd: true,
  }).shape,
  email: emailStr().nullable(),
  home_create: z.boolean(),
  home_mode: z.string(),
  password: z.string().min(1).nullable(),
  random_password: z.boolean(),
}));

// Field order is UserCreate's (UserEntry's, then the fields it adds), which is the order
// pydantic reports problems in.
export const userCreate = once(() =>
  z.strictObject({
    uid: localXid().nullable().default(null),
    username: updatable().username,
    home: updatable().home.default('/var/empty'),
    shell: updatable().shell.default('/usr/bin/zsh'),
    full_name: updatable().full_name,
    smb: updatable().smb.default(true),
    userns_idmap: updatable().userns_idmap.default(null),
    group: updatable().group.default(null),
    groups: updatable().groups.default([]),
    password_disabled: updatable().password_disabled.default(false),
    ssh_password_enabled: updatable().ssh_password_enabled.default(false),
    sshpubkey: updatable().sshpubkey.default(null),
    locked: updatable().locked.default(false),
    sudo_commands: updatable().sudo_commands.default([]),
    sudo_commands_nopasswd: updatable().sudo_commands_nopasswd.default([]),
    email: updatable().email.default(null),
    group_create: z.boolean().default(false),
    home_create: updatable().home_create.default(false),
    home_mode: updatable().home_mode.default('700'),
    password: updatable().password.default(null),
    random_password: updatable().random_password.default(false),
  }),
);

export const userUpdate = once(() => z.strictObject(updatable()).partial());

export type UserCreate = z.output<ReturnType<typeof userCreate>>;
export type UserUpdate = z.output<ReturnType<typeof userUpdate>>;

/** UserTwofactorConfigEntry. */
export const userTwofactorConfig = once(() =>
  z.object({
    provisioning_uri: z.string().nullable(),
    secret_configured: z.boolean(),
    interval: z.int(),
    otp_digits: z.int(),
  }),
);

export const twofactorOptions = once(() =>
  z.strictObject({
    otp_digits: z.int().min(6).max(8).optional(),
    interval: z.int().min(5).optional(),
  }),
);

const users = crud(userEntry, () => z.int(), { read: roles('ACCOUNT_READ'), write: roles('ACCOUNT_WRITE') });

export const userContract = service('user', {
  query: users.query('List users (filters, options), including the synthetic truenas_container_unpriv_root.'),
  get_instance: users.get_instance('One user by id.'),
  create: users.create(
    'Create a local user; returns the user entry plus `password`.',
    'user_create',
    userCreate,
    userCreateUpdateResult,
  ),
  update: {
    ...users.update(
      'Change a local user by id; a new password is kept only as a salted hash. Returns the entry plus `password`.',
      'user_update',
      userUpdate,
      userCreateUpdateResult,
    ),
    app: 'ws', // do_update: `pass_app()` (MW/plugins/account.py:765)
  },
  delete: {
    ...users.delete(
      'Delete a local user by id {delete_group: true}: its primary group goes too when nothing else uses it. Returns the id.',
      () => z.int(),
      {
        options: { schema: () => z.strictObject({ delete_group: z.boolean().default(true) }), default: () => ({}) },
      },
    ),
    app: 'rest', // do_delete: `pass_app(rest=True)` (MW/plugins/account.py:1018)
  },
  renew_2fa_secret: method({
    summary:
      'Give a user a new TOTP secret {otp_digits, interval}; returns the user entry and its twofactor_config (with the provisioning URI).',
    // authorization_required=False: any session, checked against the username in the handler.
    access: AUTHENTICATED,
    app: 'ws', // MW/plugins/account_/2fa.py:166
    params: () => [
      { name: 'username', schema: str() },
      { name: 'twofactor_options', schema: twofactorOptions() },
    ],
    result: () => userEntry().extend({ twofactor_config: userTwofactorConfig() }),
  }),
  // MW/plugins/account.py:1751-1755: authorization_required=False, `pass_app(require=True)`;
  // who may change whose password is decided in the method.
  set_password: method({
    summary:
      "Change a password {username, old_password, new_password}: your own with the current one, anyone's as a full administrator.",
    access: AUTHENTICATED,
    app: 'ws',
    params: () => [
      {
        name: 'set_password_data',
        schema: z.strictObject({
          username: str(),
          old_password: str().nullable().default(null),
          new_password: nonEmptyStr(),
        }),
      },
    ],
    result: () => z.null(),
  }),
  // MW/plugins/account.py:1253-1276: the lowest free uid from 3000, held for an hour (ReservedXid).
  get_next_uid: method({
    summary:
      'The next free uid for a new local user (3000 and up); held for the caller, so the next call answers another.',
    access: roles('ACCOUNT_READ'),
    params: () => [],
    result: () => z.int(),
  }),
  // MW/plugins/account.py:1112-1144: no roles, so FULL_ADMIN only; `result: dict` (MW/api/v25_10_1/user.py:264-280).
  shell_choices: method({
    summary:
      'Login shells a user may be given, {path: name}; the TrueNAS CLI shells too when one of group_ids (database ids) has a privilege.',
    access: roles(),
    params: () => [{ name: 'group_ids', schema: z.array(z.int()), default: () => [] }],
    result: () => modeledAs(z.record(z.string(), z.string()), PYDANTIC_DICT),
  }),
  unset_2fa_secret: method({
    summary: "Remove a user's TOTP secret; the user no longer gets asked for a code.",
    access: roles('ACCOUNT_WRITE'),
    params: () => [{ name: 'username', schema: str() }],
    result: () => z.null(),
  }),
});
