/**
 * Groups, users and privileges name each other (a group's members, a user's groups by id, a
 * privilege's groups): their adapters, and the checks, read those kinds' objects through here, so
 * no adapter imports another.
 */
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import type { Transport } from '../../../core/transport/transport.js';
import { listGroups, type Group } from '../../group/model.js';
import type { Privilege } from '../../privilege/model.js';
import type { User } from '../../user/model.js';
import type { World } from './kind.js';

export const groupsIn = (world: World): readonly Group[] => world.objects.groups as readonly Group[];
export const privilegesIn = (world: World): readonly Privilege[] => world.objects.privileges as readonly Privilege[];
export const usersIn = (world: World): readonly User[] => world.objects.users as readonly User[];

/** Usernames by user id and group names by group id, for comparing by name. */
export function namesOf(world: World) {
  return {
    userById: new Map(usersIn(world).map((u) => [u.id, u.username])),
    groupById: new Map(groupsIn(world).map((g) => [g.id, g.name])),
  };
}

/** Objects read by id or name, each once (two queries' answers joined). */
export const uniqueById = <T extends { id: number }>(...lists: readonly (readonly T[])[]): T[] => [
  ...new Map(lists.flat().map((x) => [x.id, x])).values(),
];

/** The groups of these names, in order; one the target lacks is NOT_FOUND. */
export async function groupsNamed(t: Transport, names: readonly string[]): Promise<Group[]> {
  const groups = await listGroups(t);
  return names.map((n) => {
    const g = groups.find((x) => x.name === n);
    if (!g) throw new StorError(E.NOT_FOUND, `no local group named ${JSON.stringify(n)}`);
    return g;
  });
}
