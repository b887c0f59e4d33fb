/**
 * Groups: matched by name; `members` is the complete member list (primary and auxiliary members,
 * as group.query lists them); a differing gid is a note, never changed in place.
 */
import { call } from '../../../core/contract/client.js';
import { stateGroupSchema } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import { listGroups, type Group } from '../../group/model.js';
import { groupNames } from '../../privilege/model.js';
import { listUsers, primaryGroupName } from '../../user/model.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import { groupsIn, groupsNamed, namesOf, privilegesIn, uniqueById, usersIn } from './accounts.js';
import { field, sameSet, sorted, stepOf, type KindAdapter } from './kind.js';
import { markName } from './mark.js';

async function userIds(t: Transport, names: readonly string[]): Promise<number[]> {
  const users = await listUsers(t);
  // Members the file names that do not exist yet are made in the users step, which sets their groups.
  return names.flatMap((n) => users.filter((u) => u.username === n).map((u) => u.id));
}

export const groups: KindAdapter<'groups', Group> = {
  key: 'groups',
  schema: stateGroupSchema,
  read: (t) => listGroups(t),
  live: groupsIn,

  async readOne(t, name, want) {
    const found = await listGroups(t, [['name', '=', name]]);
    // Its members by id (to name them) and the members the file names (to know which exist yet).
    const ids = found.flatMap((g) => g.users);
    const [byId, byName] = await Promise.all([
      listUsers(t, [['id', 'in', ids]]),
      listUsers(t, [['username', 'in', want?.members ?? []]]),
    ]);
    return { groups: found, users: uniqueById(byId, byName) };
  },

  plan(want, world, ctx) {
    const have = groupsIn(world).find((g) => g.name === want.name);
    const changes: FieldChange[] = [];
    if (!have) {
      if (want.gid !== undefined) changes.push({ field: 'gid', from: null, to: want.gid });
      if (want.members !== undefined) changes.push({ field: 'members', from: [], to: sorted(want.members) });
      return stepOf('groups', want, 'create', changes);
    }
    const { userById } = namesOf(world);
    const members = have.users.map((id) => userById.get(id) ?? String(id));
    if (want.gid !== undefined && want.gid !== have.gid)
      ctx.note(
        `group ${want.name}: gid is ${have.gid} on the target, ${want.gid} in the file; a gid is never changed in place`,
      );
    if (want.members !== undefined)
      field(changes, 'members', sorted(members), sorted(want.members), !sameSet(members, want.members));
    return stepOf('groups', want, 'update', changes);
  },

  prune(world, named, gone) {
    // A group still in use stays: the primary group of a user who stays (group.delete would move them
    // to nogroup, MW/plugins/account.py), or a group of a privilege that stays.
    const going = new Set(gone.map((c) => `${c.kind} ${c.name}`));
    const inUse = new Set([
      ...usersIn(world)
        .filter((u) => !going.has(`users ${u.username}`))
        .map((u) => primaryGroupName(u)),
      ...privilegesIn(world)
        .filter((p) => !going.has(`privileges ${p.name}`))
        .flatMap((p) => groupNames(p)),
    ]);
    return groupsIn(world)
      .filter(
        (g) => !named.has(g.name) && !g.builtin && madeByStor(world.marks, 'group', g.name, g.id) && !inUse.has(g.name),
      )
      .map((g) => g.name);
  },

  exists: (world, name) => groupsIn(world).some((g) => g.name === name),

  expected(want, seen, steps) {
    // A group's members the users step has yet to make are not expected yet; any other missing member is a failure.
    if (!want.members) return want;
    const toCome = new Set(
      steps.filter((s) => s.change.kind === 'users' && s.change.action === 'create').map((s) => s.change.name),
    );
    return {
      ...want,
      members: want.members.filter((m) => !toCome.has(m) || usersIn(seen).some((u) => u.username === m)),
    };
  },

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    const want = step.want;
    if (action === 'create') {
      const id = await call(t, 'group.create', [
        {
          name,
          smb: false,
          ...(want?.gid !== undefined ? { gid: want.gid } : {}),
          users: await userIds(t, want?.members ?? []),
        },
      ]);
      await markName(t, world, 'group', name, id);
    } else if (action === 'update') {
      const [g] = await groupsNamed(t, [name]);
      await call(t, 'group.update', [g!.id, { users: await userIds(t, want?.members ?? []) }]);
    } else {
      const [g] = await groupsNamed(t, [name]);
      await call(t, 'group.delete', [g!.id, { delete_users: false }]);
      await markName(t, world, 'group', name, null);
    }
  },

  export(world) {
    const { userById } = namesOf(world);
    return groupsIn(world)
      .filter((g) => !g.builtin)
      .map((g) => ({ name: g.name, gid: g.gid, members: g.users.map((id) => userById.get(id) ?? String(id)).sort() }));
  },
};
