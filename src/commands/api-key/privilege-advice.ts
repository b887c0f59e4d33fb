import { queryItems } from '../../core/contract/client.js';
import { RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';

/** The text of the refusal (MW/plugins/api_key.py:193), the one validation error advised on. */
export const LACKS_ROLES = 'User lacks privilege role membership.';

/**
 * What to bind so `username` may have a key: the privileges already bound to its groups (they
 * grant no roles), else a privilege to bind to one of its groups. An identity that may not read
 * users, groups or privileges gets the general advice.
 */
export async function privilegeAdvice(t: Transport, username: string): Promise<string> {
  const general = (groups: string[]) =>
    `bind a privilege to one of ${username}'s groups${groups.length ? ` (${groups.join(', ')})` : ''}: ` +
    `\`stor privilege update NAME --groups ${groups[0] ?? 'GROUP'}\` or \`stor privilege create NAME --groups ${groups[0] ?? 'GROUP'} --roles ROLE\``;
  try {
    const [users, groups, privileges] = await Promise.all([
      queryItems(t, 'user.query', ['username', 'group', 'groups'], [['username', '=', username]], {
        select: ['username', 'group', 'groups'],
      }),
      queryItems(t, 'group.query', ['id', 'gid', 'name'], [], { select: ['id', 'gid', 'name'] }),
      queryItems(t, 'privilege.query', ['name', 'local_groups'], [], { select: ['name', 'local_groups'] }),
    ]);
    const user = users[0];
    if (!user) return general([]);
    const byId = new Map(groups.map((g) => [g.id, g]));
    // `group` is the primary group's raw row (`bsdgrp_gid`, `bsdgrp_group`); `groups` are group ids.
    const primary =
      typeof user.group.bsdgrp_gid === 'number'
        ? [{ gid: user.group.bsdgrp_gid, name: String(user.group.bsdgrp_group) }]
        : [];
    const mine = [...primary, ...user.groups.flatMap((id) => byId.get(id) ?? [])];
    const gids = new Set(mine.map((g) => g.gid));
    const bound = privileges.filter((p) => p.local_groups.some((g) => g.gid !== null && gids.has(g.gid)));
    if (bound.length === 0) return general(mine.map((g) => g.name));
    const names = bound.map((p) => `"${p.name}"`).join(', ');
    return `${bound.length === 1 ? 'privilege' : 'privileges'} ${names} ${bound.length === 1 ? 'is' : 'are'} bound to ${username}'s groups but grant${bound.length === 1 ? 's' : ''} no roles: give ${bound.length === 1 ? 'it' : 'one'} roles with \`stor privilege update ${bound[0]!.name} --roles ROLE\``;
  } catch (err) {
    if (err instanceof RpcError) return general([]);
    throw err;
  }
}
