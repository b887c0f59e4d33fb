import { call, queryItems, type Needed } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import type { View } from '../output/render.js';
import { listGroups, unknownGroup, type Group } from '../group/model.js';

const USER_FIELDS = [
  'id',
  'uid',
  'username',
  'full_name',
  'group',
  'groups',
  'builtin',
  'immutable',
  'locked',
  'password_disabled',
  'smb',
  'shell',
  'home',
  'twofactor_auth_configured',
  'api_keys',
  'roles',
] as const;

export type User = Needed<'user.query', (typeof USER_FIELDS)[number]>;

/** One user as `stor user list --json` and `show --json` give it. Never a password or hash. */
export interface UserSummary {
  /** The appliance's database id (what user.update and user.delete take), not the uid. */
  id: number;
  uid: number;
  username: string;
  full_name: string;
  /** The primary group by name; null for the appliance's synthetic accounts, which have none. */
  group: string | null;
  /** Auxiliary groups by name. */
  groups: string[];
  builtin: boolean;
  locked: boolean;
  password_disabled: boolean;
  smb: boolean;
  shell: string;
  home: string;
  twofactor: boolean;
  api_keys: number;
  /** Roles from the privileges of the user's groups, unexpanded. */
  roles: string[];
}

export async function listUsers(t: Transport, filters: unknown[] = []): Promise<User[]> {
  return queryItems(t, 'user.query', USER_FIELDS, filters, { select: [...USER_FIELDS] });
}

/** A user by name, or by uid when the text is a number (25.10.1 usernames start with a letter or `_`). */
export function findUserIn(users: readonly User[], ref: string): User {
  const found = /^\d+$/.test(ref) ? users.find((u) => u.uid === Number(ref)) : users.find((u) => u.username === ref);
  if (!found)
    throw new StorError(E.NOT_FOUND, `no user with name or uid ${JSON.stringify(ref)}`, {
      hint: '`stor user list` shows them',
    });
  return found;
}

export async function findUser(t: Transport, ref: string): Promise<User> {
  return findUserIn(await listUsers(t), ref);
}

/** UserEntry's `group` is the primary group's raw row; synthetic accounts have `{}` there. */
export const primaryGroupName = (u: Pick<User, 'group'>): string | null =>
  typeof u.group.bsdgrp_group === 'string' ? u.group.bsdgrp_group : null;

export function summarize(u: User, groupNames: Map<number, string>): UserSummary {
  return {
    id: u.id,
    uid: u.uid,
    username: u.username,
    full_name: u.full_name,
    group: primaryGroupName(u),
    groups: u.groups.map((id) => groupNames.get(id) ?? String(id)),
    builtin: u.builtin,
    locked: u.locked,
    password_disabled: u.password_disabled,
    smb: u.smb,
    shell: u.shell,
    home: u.home,
    twofactor: u.twofactor_auth_configured,
    api_keys: u.api_keys.length,
    roles: u.roles,
  };
}

export async function userSummaries(t: Transport, filters: unknown[] = []): Promise<UserSummary[]> {
  const [users, groups] = await Promise.all([listUsers(t, filters), listGroups(t)]);
  const names = new Map(groups.map((g) => [g.id, g.name]));
  return users.map((u) => summarize(u, names));
}

export async function userSummary(t: Transport, id: number): Promise<UserSummary> {
  const [summary] = await userSummaries(t, [['id', '=', id]]);
  if (!summary) throw new StorError(E.NOT_FOUND, `no user with id ${id}`, { hint: '`stor user list` shows them' });
  return summary;
}

/** Group database ids for names (or gids), in order; an unknown one fails before anything changes. */
export function groupIdsIn(groups: readonly Group[], refs: readonly string[]): number[] {
  return refs.map((ref) => {
    const g =
      groups.find((x) => x.name === ref) ?? (/^\d+$/.test(ref) ? groups.find((x) => x.gid === Number(ref)) : undefined);
    if (!g) throw unknownGroup(ref);
    return g.id;
  });
}

export function userRecord(u: UserSummary, heading: string): View {
  return {
    kind: 'record',
    heading,
    fields: [
      ['uid', u.uid],
      ['username', u.username],
      ['full name', u.full_name],
      ['group', u.group],
      ['groups', u.groups],
      ['builtin', u.builtin],
      ['locked', u.locked],
      ['password', u.password_disabled ? 'disabled' : 'enabled'],
      ['smb', u.smb],
      ['shell', u.shell],
      ['home', u.home],
      ['2fa', u.twofactor],
      ['api keys', u.api_keys],
      ['roles', u.roles],
    ],
  };
}

/**
 * A `--shell` the appliance refused with "Please select a valid shell." (MW/plugins/account.py:1638-1640,
 * its words kept) gains the shells it would take as its hint: `user.shell_choices` (:1112-1144),
 * asked with the groups the validation asks it with (:631-634 create, :835-839 update). That
 * method has no roles (FULL_ADMIN only): for another identity the error stays as it came.
 */
export async function hintValidShells(t: Transport, err: unknown, groupIds: readonly number[]): Promise<void> {
  if (!(err instanceof RpcError) || err.hint !== undefined) return;
  if (
    !err.triples.some(
      ([attribute, message]) => attribute?.endsWith('.shell') && message === 'Please select a valid shell.',
    )
  )
    return;
  const choices = await call(t, 'user.shell_choices', [[...groupIds]]).catch(() => undefined);
  if (choices) err.hint = `valid shells: ${Object.keys(choices).join(', ')}`;
}
