import { z } from 'zod';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { insertGroup } from '../store/groups.js';
import { AccountsSnapshot } from './accounts.js';
import { defineMethod, roles } from './method.js';
import { nonEmptyStr } from './params.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';

/** Lowest free id ≥ 3000 (`MIN_AUTO_XID`), skipping `taken`. */
export function nextFreeId(taken: Iterable<number>, min = 3000): number {
  const used = new Set(taken);
  let id = min;
  while (used.has(id)) id++;
  return id;
}

const groupCreate = z.strictObject({
  name: nonEmptyStr().regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/, 'Invalid group name'),
  gid: z.int().min(0).max(90_000_000).nullable().default(null),
  smb: z.boolean().default(true),
  sudo_commands: z.array(z.string()).default([]),
  sudo_commands_nopasswd: z.array(z.string()).default([]),
  userns_idmap: z.union([z.literal('DIRECT'), z.int(), z.null()]).default(null),
  users: z.array(z.int()).default([]),
});

export const groupMethods = [
  defineMethod({
    name: 'group.query',
    summary: 'List local groups (filters, options).',
    access: roles('ACCOUNT_READ'),
    params: QUERY_PARAMS,
    handler: ({ appliance }, filters, options) => {
      const accounts = appliance.accounts();
      return query(accounts.groups.map((g) => accounts.groupEntry(g)), filters, options);
    },
  }),
  defineMethod({
    name: 'group.create',
    summary: 'Create a local group; returns its database id.',
    access: roles('ACCOUNT_WRITE'),
    params: [{ name: 'group_create', schema: groupCreate }],
    handler: ({ appliance: { store } }, data) =>
      store.write(() => {
        const accounts = AccountsSnapshot.load(store.db);
        const errors: ValidationTriple[] = [];
        const clash = accounts.groups.find((g) => g.name === data.name);
        if (clash) errors.push(['group_create.name', `A Group with the name "${data.name}" already exists.`, ERRNO.EEXIST]);
        if (data.gid !== null) {
          const owner = accounts.groupByGid.get(data.gid);
          if (owner) errors.push(['group_create.gid', `Gid ${data.gid} is already used (group ${owner.name} has it)`, ERRNO.EEXIST]);
          const priv = accounts.privileges.find((p) => p.local_groups.includes(data.gid!));
          if (priv) errors.push(['group_create.gid', `A privilege '${priv.name}' already uses this group ID.`, ERRNO.EINVAL]);
        }
        data.users.forEach((id, i) => {
          if (!accounts.users.some((u) => u.id === id)) errors.push([`group_create.users.${i}`, 'This user does not exist.', ERRNO.EINVAL]);
        });
        if (errors.length > 0) throw rpcErrors.validation(errors);
        const gid =
          data.gid ?? nextFreeId([...accounts.groups.map((g) => g.gid), ...accounts.privileges.flatMap((p) => p.local_groups)]);
        const id = insertGroup(store.db, {
          gid,
          name: data.name,
          builtin: false,
          smb: data.smb,
          sudo_commands: data.sudo_commands,
          sudo_commands_nopasswd: data.sudo_commands_nopasswd,
          userns_idmap: data.userns_idmap,
        });
        const add = store.db.prepare('INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?, ?)');
        for (const userId of data.users) add.run(userId, id);
        return id;
      }),
  }),
];
