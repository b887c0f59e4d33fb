/**
 * Users: matched by username; made without a password (password_disabled), with a primary group by
 * name (default: a new group named like the user, as 25.10.1's group_create makes it).
 */
import { call } from '../../../core/contract/client.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import { stateUserSchema, type StateFile } from '../../../core/state/index.js';
import { listGroups } from '../../group/model.js';
import { listUsers, primaryGroupName, type User } from '../../user/model.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import { groupsNamed, namesOf, usersIn } from './accounts.js';
import { field, sameSet, sorted, stepOf, type DesiredOf, type KindAdapter } from './kind.js';
import { markName } from './mark.js';

/**
 * A user the run makes, with the groups of the file that list it as a member (less its primary
 * group): the groups step cannot add a user not made yet, and user.create takes `groups` (UserCreate
 * inherits UserEntry.groups, MW/api/v25_10_1/user.py:83), so the create carries them and one run
 * makes the file true. An existing user is added by the groups step itself.
 */
function withListedGroups(want: DesiredOf<'users'>, file: StateFile | undefined): DesiredOf<'users'> {
  const primary = want.group ?? want.name;
  const listed = (file?.groups ?? [])
    .filter((g) => g.name !== primary && g.members?.includes(want.name))
    .map((g) => g.name);
  if (listed.length === 0) return want;
  return { ...want, groups: [...new Set([...(want.groups ?? []), ...listed])] };
}

export const users: KindAdapter<'users', User> = {
  key: 'users',
  schema: stateUserSchema,
  read: (t) => listUsers(t),
  live: usersIn,

  async readOne(t, name) {
    const found = await listUsers(t, [['username', '=', name]]);
    // Its auxiliary groups, to name them.
    return { users: found, groups: await listGroups(t, [['id', 'in', found.flatMap((u) => u.groups)]]) };
  },

  plan(want, world, ctx) {
    const have = usersIn(world).find((u) => u.username === want.name);
    const changes: FieldChange[] = [];
    if (!have) {
      want = withListedGroups(want, ctx.file);
      changes.push({ field: 'full_name', from: null, to: want.full_name ?? want.name });
      changes.push({ field: 'group', from: null, to: want.group ?? want.name });
      if (want.groups !== undefined) changes.push({ field: 'groups', from: [], to: sorted(want.groups) });
      if (want.shell !== undefined) changes.push({ field: 'shell', from: null, to: want.shell });
      if (want.home !== undefined) changes.push({ field: 'home', from: null, to: want.home });
      changes.push({ field: 'password_disabled', from: null, to: true });
      return stepOf('users', want, 'create', changes);
    }
    const { groupById } = namesOf(world);
    const aux = have.groups.map((id) => groupById.get(id) ?? String(id));
    if (want.full_name !== undefined)
      field(changes, 'full_name', have.full_name, want.full_name, want.full_name !== have.full_name);
    if (want.group !== undefined)
      field(changes, 'group', primaryGroupName(have), want.group, want.group !== primaryGroupName(have));
    if (want.groups !== undefined)
      field(changes, 'groups', sorted(aux), sorted(want.groups), !sameSet(aux, want.groups));
    if (want.shell !== undefined) field(changes, 'shell', have.shell, want.shell, want.shell !== have.shell);
    if (want.home !== undefined) field(changes, 'home', have.home, want.home, want.home !== have.home);
    if (want.password_disabled === true)
      field(changes, 'password_disabled', have.password_disabled, true, !have.password_disabled);
    return stepOf('users', want, 'update', changes);
  },

  prune: (world, named) =>
    usersIn(world)
      .filter((u) => !named.has(u.username) && !u.builtin && madeByStor(world.marks, 'user', u.username, u.id))
      .map((u) => u.username),

  exists: (world, name) => usersIn(world).some((u) => u.username === name),

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    const want = step.want;
    const [existing] = await listUsers(t, [['username', '=', name]]);
    if (action === 'delete') {
      // delete_group false: a primary group is a group of its own, pruned (or kept) as one.
      if (existing) await call(t, 'user.delete', [existing.id, { delete_group: false }]);
      await markName(t, world, 'user', name, null);
      return;
    }
    const fields = {
      ...(want?.full_name !== undefined ? { full_name: want.full_name } : {}),
      ...(want?.groups !== undefined ? { groups: (await groupsNamed(t, want.groups)).map((g) => g.id) } : {}),
      ...(want?.shell !== undefined ? { shell: want.shell } : {}),
      ...(want?.home !== undefined ? { home: want.home } : {}),
    };
    const primaryName = want?.group ?? (action === 'create' ? name : undefined);
    const [primary] = primaryName !== undefined ? await listGroups(t, [['name', '=', primaryName]]) : [];
    if (action === 'create') {
      // As `stor user create`: an existing group by id, else 25.10.1's group_create for one named like the user (MW/plugins/account.py:646-668).
      const group = primary ? { group: primary.id } : primaryName === name ? { group_create: true } : undefined;
      if (!group)
        throw new StorError(
          E.NOT_FOUND,
          `no local group named ${JSON.stringify(primaryName)} for ${name}'s primary group`,
        );
      const created = await call(t, 'user.create', [
        {
          username: name,
          full_name: want?.full_name ?? name,
          password_disabled: true,
          smb: false,
          ...fields,
          ...group,
        },
      ]);
      await markName(t, world, 'user', name, created.id);
      // The group 25.10.1 made for the user is stor's too: --prune may take it with the user.
      const madeGroup = created.group.id;
      if ('group_create' in group && typeof madeGroup === 'number') await markName(t, world, 'group', name, madeGroup);
    } else {
      if (!existing) throw new StorError(E.NOT_FOUND, `no user named ${JSON.stringify(name)}`);
      if (want?.group !== undefined && !primary)
        throw new StorError(E.NOT_FOUND, `no local group named ${JSON.stringify(want.group)}`);
      await call(t, 'user.update', [
        existing.id,
        {
          ...fields,
          ...(primary && want?.group !== undefined ? { group: primary.id } : {}),
          ...(want?.password_disabled ? { password_disabled: true, smb: false } : {}),
        },
      ]);
    }
  },

  export(world) {
    const { groupById } = namesOf(world);
    return usersIn(world)
      .filter((u) => !u.builtin)
      .map((u) => {
        const group = primaryGroupName(u);
        return {
          name: u.username,
          full_name: u.full_name,
          ...(group !== null ? { group } : {}),
          groups: u.groups.map((id) => groupById.get(id) ?? String(id)).sort(),
          shell: u.shell,
          home: u.home,
          ...(u.password_disabled ? { password_disabled: true as const } : {}),
        };
      });
  },
};
