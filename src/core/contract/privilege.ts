import * as z from 'zod';
import { groupEntry } from './group.js';
import { AUTHENTICATED, defineContract, queryResult, roles, once } from './method.js';
import { QUERY_PARAMS, instanceParams } from './query.js';

// `MW/api/v25_10_1/privilege.py`; role prefix PRIVILEGE (`MW/plugins/account_/privilege.py:51`).

/** A GID or SID that no longer maps to a group (UnmappedGroupEntry). */
const unmappedGroup = once(() => z.object({ gid: z.int().nullable(), sid: z.string().nullable(), group: z.null() }));

export const privilegeEntry = once(() => z.object({
  id: z.int(),
  builtin_name: z.string().nullable(),
  name: z.string().min(1),
  local_groups: z.array(z.union([groupEntry(), unmappedGroup()])),
  ds_groups: z.array(z.union([groupEntry(), unmappedGroup()])),
  roles: z.array(z.string()),
  web_shell: z.boolean(),
}));

const fields = once(() => ({
  name: z.string().min(1).max(1024),
  web_shell: z.boolean(),
  local_groups: z.array(z.int()),
  ds_groups: z.array(z.union([z.int(), z.string()])),
  roles: z.array(z.string().max(1024)),
}));

const privilegeCreate = once(() => z.strictObject({
  name: fields().name,
  web_shell: fields().web_shell,
  local_groups: fields().local_groups.default([]),
  ds_groups: fields().ds_groups.default([]),
  roles: fields().roles.default([]),
}));

const privilegeUpdate = once(() => z.strictObject({
  name: fields().name.optional(),
  web_shell: fields().web_shell.optional(),
  local_groups: fields().local_groups.optional(),
  ds_groups: fields().ds_groups.optional(),
  roles: fields().roles.optional(),
}));

export const privilegeRolesEntry = once(() => z.object({
  name: z.string().min(1),
  title: z.string().min(1),
  includes: z.array(z.string().min(1)),
  builtin: z.boolean(),
  stig: z.literal(1).nullable(),
}));

export const privilegeContract = {
  'privilege.query': defineContract({
    name: 'privilege.query',
    summary: 'List privileges (filters, options); local_groups as group objects.',
    access: roles('PRIVILEGE_READ'),
    params: () => QUERY_PARAMS,
    result: () => queryResult(privilegeEntry()),
  }),
  'privilege.get_instance': defineContract({
    name: 'privilege.get_instance',
    summary: 'One privilege by id.',
    access: roles('PRIVILEGE_READ'),
    params: () => instanceParams(z.int()),
    result: () => privilegeEntry(),
  }),
  'privilege.create': defineContract({
    name: 'privilege.create',
    summary: 'Create a privilege {name, web_shell, local_groups (GIDs), ds_groups, roles}.',
    access: roles('PRIVILEGE_WRITE'),
    params: () => [{ name: 'privilege_create', schema: privilegeCreate() }],
    result: () => privilegeEntry(),
  }),
  'privilege.update': defineContract({
    name: 'privilege.update',
    summary: 'Change any of a privilege’s fields(); the rest are kept.',
    access: roles('PRIVILEGE_WRITE'),
    params: () => [
      { name: 'id', schema: z.int() },
      { name: 'privilege_update', schema: privilegeUpdate() },
    ],
    result: () => privilegeEntry(),
  }),
  'privilege.delete': defineContract({
    name: 'privilege.delete',
    summary: 'Delete a privilege; built-in privileges cannot be deleted.',
    access: roles('PRIVILEGE_WRITE'),
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.boolean(),
  }),
  'privilege.roles': defineContract({
    name: 'privilege.roles',
    summary: 'The role catalogue: name, title, includes, builtin, stig.',
    access: AUTHENTICATED,
    params: () => QUERY_PARAMS,
    result: () => queryResult(privilegeRolesEntry()),
  }),
};
