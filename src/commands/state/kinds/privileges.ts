/**
 * Privileges: matched by name; roles compared in the order written (what the appliance stores and
 * `privilege check` indexes); judged against the target's catalogue and lockout rule before
 * anything is applied (privilege/model.ts healthOf, as `privilege check` judges them).
 */
import { call, queryItems } from '../../../core/contract/client.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import { statePrivilegeSchema } from '../../../core/state/index.js';
import { groupNames, healthOf, listPrivileges, proposedFix, type Privilege } from '../../privilege/model.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import { groupsNamed, privilegesIn } from './accounts.js';
import { field, sameSet, sorted, stepOf, type KindAdapter } from './kind.js';
import { markName } from './mark.js';

export const privileges: KindAdapter<'privileges', Privilege> = {
  key: 'privileges',
  schema: statePrivilegeSchema,
  read: (t) => listPrivileges(t),
  live: privilegesIn,

  readOne: async (t, name) => ({ privileges: await listPrivileges(t, [['name', '=', name]]) }),

  plan(original, world, ctx) {
    let want = original;
    if (want.roles !== undefined) {
      const h = healthOf(world.roles, want.roles);
      const redundant = h.findings.filter((f) => f.kind === 'overlap' || f.kind === 'duplicate');
      if (redundant.length > 0) {
        const minimal = h.fix().after;
        ctx.overlap({ privilege: want.name, roles: want.roles, minimal, findings: redundant.map((f) => f.effect) });
        if (ctx.normalize) want = { ...want, roles: minimal };
      }
    }
    const have = privilegesIn(world).find((p) => p.name === want.name);
    const changes: FieldChange[] = [];
    if (!have) {
      changes.push({ field: 'groups', from: [], to: sorted(want.groups ?? []) });
      changes.push({ field: 'roles', from: [], to: want.roles ?? [] });
      changes.push({ field: 'web_shell', from: null, to: want.web_shell ?? false });
      return stepOf('privileges', want, 'create', changes);
    }
    const groups = groupNames(have);
    if (want.groups !== undefined)
      field(changes, 'groups', sorted(groups), sorted(want.groups), !sameSet(groups, want.groups));
    // Order is kept as written: it is what the appliance stores and `privilege check` indexes.
    if (want.roles !== undefined)
      field(changes, 'roles', have.roles, want.roles, JSON.stringify(have.roles) !== JSON.stringify(want.roles));
    if (want.web_shell !== undefined)
      field(changes, 'web_shell', have.web_shell, want.web_shell, want.web_shell !== have.web_shell);
    return stepOf('privileges', want, 'update', changes);
  },

  prune: (world, named) =>
    privilegesIn(world)
      .filter(
        (p) => !named.has(p.name) && p.builtin_name === null && madeByStor(world.marks, 'privilege', p.name, p.id),
      )
      .map((p) => p.name),

  exists: (world, name) => privilegesIn(world).some((p) => p.name === name),

  /** Every role named exists in the target's catalogue, and no list locks its users out there (unless `force`). */
  refuse(world, steps, force) {
    const unknown: string[] = [];
    const locking: string[] = [];
    for (const { want } of steps) {
      if (!want?.roles) continue;
      const h = healthOf(world.roles, want.roles);
      const u = h.findings.filter((f) => f.kind === 'unknown').map((f) => f.role);
      if (u.length) unknown.push(`${want.name}: ${u.join(', ')}`);
      if (h.locksOut) {
        const why = h.findings
          .filter((f) => f.locks_out)
          .map((f) => f.effect)
          .join('; ');
        locking.push(
          `privilege ${want.name}: ${why}; the minimal list that does not: ${proposedFix(h).after.join(',') || '(none)'}`,
        );
      }
    }
    if (unknown.length) {
      throw new StorError(
        E.UNKNOWN_ROLE,
        `not roles of this target (${world.roles.source} catalogue): ${unknown.join('; ')}`,
        { hint: '`stor call privilege.roles` lists them' },
      );
    }
    if (locking.length && !force) {
      throw new StorError(E.ROLE_LIST_LOCKS_OUT, `on ${world.roles.model.name}: ${locking.join(' | ')}`, {
        hint: 'write the minimal list into the file (`stor privilege check` explains each role), or --force to apply it anyway',
      });
    }
  },

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    const want = step.want;
    const [existing] = await queryItems(t, 'privilege.query', ['id'], [['name', '=', name]]);
    if (action === 'delete') {
      if (existing) await call(t, 'privilege.delete', [existing.id]);
      await markName(t, world, 'privilege', name, null);
      return;
    }
    const fields = {
      ...(want?.groups !== undefined ? { local_groups: (await groupsNamed(t, want.groups)).map((g) => g.gid) } : {}),
      ...(want?.roles !== undefined ? { roles: want.roles } : {}),
      ...(want?.web_shell !== undefined ? { web_shell: want.web_shell } : {}),
    };
    if (action === 'create') {
      const created = await call(t, 'privilege.create', [{ name, web_shell: false, ...fields }]);
      await markName(t, world, 'privilege', name, created.id);
    } else {
      if (!existing) throw new StorError(E.NOT_FOUND, `no privilege named ${JSON.stringify(name)}`);
      await call(t, 'privilege.update', [existing.id, fields]);
    }
  },

  export: (world) =>
    privilegesIn(world)
      .filter((p) => p.builtin_name === null)
      .map((p) => ({ name: p.name, groups: groupNames(p).sort(), roles: p.roles, web_shell: p.web_shell })),
};
