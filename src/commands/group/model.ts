import { queryItems, type Needed } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import type { View } from '../output/render.js';

const GROUP_FIELDS = ['id', 'gid', 'name', 'builtin', 'immutable', 'smb', 'users', 'roles'] as const;

export type Group = Needed<'group.query', (typeof GROUP_FIELDS)[number]>;

/** One group as `stor group list --json` and `show --json` give it. */
export interface GroupSummary {
  /** The appliance's database id (what user.* and group.update take), not the gid. */
  id: number;
  gid: number;
  name: string;
  builtin: boolean;
  smb: boolean;
  /** Users whose primary or auxiliary group this is, by name. */
  members: string[];
  /** Privileges bound to this group by name; null when this identity may not read privileges. */
  privileges: string[] | null;
  /** Roles those privileges give, as the appliance lists them (unexpanded). */
  roles: string[];
}

export async function listGroups(t: Transport, filters: unknown[] = []): Promise<Group[]> {
  return queryItems(t, 'group.query', GROUP_FIELDS, filters, { select: [...GROUP_FIELDS] });
}

/**
 * A group by name, or by gid when the text is a number no group is named: 25.10.1 group names
 * may start with a digit, so the name wins.
 */
export function findGroupIn(groups: readonly Group[], ref: string): Group {
  const found =
    groups.find((g) => g.name === ref) ?? (/^\d+$/.test(ref) ? groups.find((g) => g.gid === Number(ref)) : undefined);
  if (!found) throw unknownGroup(ref);
  return found;
}

export const unknownGroup = (ref: string): StorError =>
  new StorError(E.NOT_FOUND, `no local group with name or gid ${JSON.stringify(ref)}`, {
    hint: '`stor group list` shows them',
  });

export async function findGroup(t: Transport, ref: string): Promise<Group> {
  return findGroupIn(await listGroups(t), ref);
}

/** Names of users by database id, for members. */
export async function usernamesById(t: Transport): Promise<Map<number, string>> {
  const users = await queryItems(t, 'user.query', ['id', 'username'], [], { select: ['id', 'username'] });
  return new Map(users.map((u) => [u.id, u.username]));
}

/**
 * Privilege names by the gids bound to them. Only a privilege reader sees them; for anyone else
 * the appliance's refusal means "not known" (null), not a failure of the listing.
 */
export async function privilegesByGid(t: Transport): Promise<Map<number, string[]> | null> {
  try {
    const privileges = await queryItems(t, 'privilege.query', ['name', 'local_groups'], [], {
      select: ['name', 'local_groups'],
    });
    const byGid = new Map<number, string[]>();
    for (const p of privileges) {
      for (const g of p.local_groups)
        if (g.gid !== null && g.gid !== undefined) byGid.set(g.gid, [...(byGid.get(g.gid) ?? []), p.name]);
    }
    return byGid;
  } catch (err) {
    if (err instanceof RpcError) return null;
    throw err;
  }
}

export function summarize(
  g: Group,
  usernames: Map<number, string>,
  privileges: Map<number, string[]> | null,
): GroupSummary {
  return {
    id: g.id,
    gid: g.gid,
    name: g.name,
    builtin: g.builtin,
    smb: g.smb,
    members: g.users.map((id) => usernames.get(id) ?? String(id)),
    privileges: privileges ? (privileges.get(g.gid) ?? []) : null,
    roles: g.roles,
  };
}

/** Every group with members and privileges, in the appliance's order. */
export async function groupSummaries(t: Transport, filters: unknown[] = []): Promise<GroupSummary[]> {
  const [groups, usernames, privileges] = await Promise.all([
    listGroups(t, filters),
    usernamesById(t),
    privilegesByGid(t),
  ]);
  return groups.map((g) => summarize(g, usernames, privileges));
}

export async function groupSummary(t: Transport, id: number): Promise<GroupSummary> {
  const [summary] = await groupSummaries(t, [['id', '=', id]]);
  if (!summary) throw unknownGroup(String(id));
  return summary;
}

export function groupRecord(g: GroupSummary, heading: string): View {
  return {
    kind: 'record',
    heading,
    fields: [
      ['gid', g.gid],
      ['name', g.name],
      ['builtin', g.builtin],
      ['smb', g.smb],
      ['members', g.members],
      ['privileges', g.privileges ?? '(not readable)'],
      ['roles', g.roles],
    ],
  };
}

/** User database ids for names, in order; an unknown name fails before anything changes. */
export async function userIdsFor(t: Transport, names: readonly string[]): Promise<number[]> {
  const users = await queryItems(t, 'user.query', ['id', 'username'], [], { select: ['id', 'username'] });
  return names.map((name) => {
    const u = users.find((x) => x.username === name);
    if (!u)
      throw new StorError(E.NOT_FOUND, `no local user named ${JSON.stringify(name)}`, {
        hint: '`stor user list` shows them',
      });
    return u.id;
  });
}
