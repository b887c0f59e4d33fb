import * as z from 'zod';
import { groupEntry } from './group.js';
import { crud } from './crud.js';
import { AUTHENTICATED, queryResult, roles, once } from './method.js';
import { queryParams } from './query.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/privilege.py`; role prefix PRIVILEGE (`MW/plugins/account_/privilege.py:51`).

/** A GID or SID that no longer maps to a group (UnmappedGroupEntry). */
const unmappedGroup = once(() => z.object({ gid: z.int().nullable(), sid: z.string().nullable(), group: z.null() }));

export const privilegeEntry = once(() =>
  z.object({
    id: z.int(),
    builtin_name: z.string().nullable(),
    name: z.string().min(1),
    local_groups: z.array(z.union([groupEntry(), unmappedGroup()])),
    ds_groups: z.array(z.union([groupEntry(), unmappedGroup()])),
    roles: z.array(z.string()),
    web_shell: z.boolean(),
  }),
);

const fields = once(() => ({
  name: z.string().min(1).max(1024),
  web_shell: z.boolean(),
  local_groups: z.array(z.int()),
  ds_groups: z.array(z.union([z.int(), z.string()])),
  roles: z.array(z.string().max(1024)),
}));

const privilegeCreate = once(() =>
  z.strictObject({
    name: fields().name,
    web_shell: fields().web_shell,
    local_groups: fields().local_groups.default([]),
    ds_groups: fields().ds_groups.default([]),
    roles: fields().roles.default([]),
  }),
);

const privilegeUpdate = once(() =>
  z.strictObject({
    name: fields().name.optional(),
    web_shell: fields().web_shell.optional(),
    local_groups: fields().local_groups.optional(),
    ds_groups: fields().ds_groups.optional(),
    roles: fields().roles.optional(),
  }),
);

export const privilegeRolesEntry = once(() =>
  z.object({
    name: z.string().min(1),
    title: z.string().min(1),
    includes: z.array(z.string().min(1)),
    builtin: z.boolean(),
    stig: z.literal(1).nullable(),
  }),
);

const privileges = crud(privilegeEntry, () => z.int(), {
  read: roles('PRIVILEGE_READ'),
  write: roles('PRIVILEGE_WRITE'),
});

export const privilegeContract = service('privilege', {
  query: privileges.query('List privileges (filters, options); local_groups as group objects.'),
  get_instance: privileges.get_instance('One privilege by id.'),
  create: privileges.create(
    'Create a privilege {name, web_shell, local_groups (GIDs), ds_groups, roles}.',
    'privilege_create',
    privilegeCreate,
    privilegeEntry,
  ),
  update: privileges.update(
    'Change any of a privilege’s fields(); the rest are kept.',
    'privilege_update',
    privilegeUpdate,
    privilegeEntry,
  ),
  delete: privileges.delete('Delete a privilege; built-in privileges cannot be deleted.', () => z.boolean()),
  roles: method({
    summary: 'The role catalogue: name, title, includes, builtin, stig.',
    access: AUTHENTICATED,
    params: queryParams,
    result: () => queryResult(privilegeRolesEntry()),
  }),
});
