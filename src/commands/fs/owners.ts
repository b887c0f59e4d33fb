import { queryItems } from '../../core/contract/client.js';
import { RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';

export interface OwnerNames {
  user(uid: number): string | null;
  group(gid: number): string | null;
}

/**
 * Local user and group names by id, for listings that carry only ids. An identity that may read
 * files but not accounts still gets its listing, with ids where names would be.
 */
export async function ownerNames(t: Transport): Promise<OwnerNames> {
  const orEmpty = <T>(p: Promise<T[]>): Promise<T[]> =>
    p.catch((err: unknown) => (err instanceof RpcError ? [] : Promise.reject(err)));
  const [users, groups] = await Promise.all([
    orEmpty(queryItems(t, 'user.query', ['uid', 'username'], [], { select: ['uid', 'username'] })),
    orEmpty(queryItems(t, 'group.query', ['gid', 'name'], [], { select: ['gid', 'name'] })),
  ]);
  const byUid = new Map(users.map((u) => [u.uid, u.username]));
  const byGid = new Map(groups.map((g) => [g.gid, g.name]));
  return { user: (uid) => byUid.get(uid) ?? null, group: (gid) => byGid.get(gid) ?? null };
}
