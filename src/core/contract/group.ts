import * as z from 'zod';
import { localXid, posixName, usernsIdmap } from './accounts-common.js';
import { crud } from './crud.js';
import { roles, once } from './method.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/group.py`; role prefix ACCOUNT (`MW/plugins/account.py` GroupService.Config).

/** GroupEntry. */
export const groupEntry = once(() =>
  z.object({
    id: z.int(),
    gid: z.int(),
    name: z.string().min(1),
    builtin: z.boolean(),
    sudo_commands: z.array(z.string().min(1)),
    sudo_commands_nopasswd: z.array(z.string().min(1)),
    smb: z.boolean(),
    userns_idmap: usernsIdmap(),
    group: z.string().min(1),
    local: z.boolean(),
    sid: z.string().nullable(),
    roles: z.array(z.string()),
    users: z.array(z.int()),
    immutable: z.boolean(),
  }),
);

const GROUP_VALID_START = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.';

// GroupCreate: GroupEntry's order (gid, name, sudo_commands, sudo_commands_nopasswd, smb, userns_idmap, users).
export const groupCreate = once(() =>
  z.strictObject({
    gid: localXid().nullable().default(null),
    name: posixName(GROUP_VALID_START, null),
    sudo_commands: z.array(z.string().min(1)).default([]),
    sudo_commands_nopasswd: z.array(z.string().min(1)).default([]),
    smb: z.boolean().default(true),
    userns_idmap: usernsIdmap().default(null),
    users: z.array(z.int()).default([]),
  }),
);

/** GroupUpdate: GroupCreate without `gid`, every field optional. */
export const groupUpdate = once(() =>
  z
    .strictObject({
      name: posixName(GROUP_VALID_START, null),
      sudo_commands: z.array(z.string().min(1)),
      sudo_commands_nopasswd: z.array(z.string().min(1)),
      smb: z.boolean(),
      userns_idmap: usernsIdmap(),
      users: z.array(z.int()),
    })
    .partial(),
);

export type GroupCreate = z.output<ReturnType<typeof groupCreate>>;
export type GroupUpdate = z.output<ReturnType<typeof groupUpdate>>;

const groups = crud(groupEntry, () => z.int(), { read: roles('ACCOUNT_READ'), write: roles('ACCOUNT_WRITE') });

export const groupContract = service('group', {
  query: groups.query('List groups (filters, options).'),
  get_instance: groups.get_instance('One group by id.'),
  create: groups.create('Create a local group; returns its database id.', 'group_create', groupCreate, () => z.int()),
  update: groups.update(
    'Change a local group by id (name, smb, sudo commands, userns_idmap, members); returns the id.',
    'group_update',
    groupUpdate,
    () => z.int(),
  ),
  delete: groups.delete(
    'Delete a local group by id {delete_users: false}: its primary members move to nogroup, or are deleted. Returns the id.',
    () => z.int(),
    {
      options: { schema: () => z.strictObject({ delete_users: z.boolean().default(false) }), default: () => ({}) },
    },
  ),
  // MW/plugins/account.py:2190-2211: the lowest free gid from 3000 (privileges' gids counted), held for an hour.
  get_next_gid: method({
    summary:
      'The next free gid for a new local group (3000 and up); held for the caller, so the next call answers another.',
    access: roles('ACCOUNT_READ'),
    params: () => [],
    result: () => z.int(),
  }),
});
