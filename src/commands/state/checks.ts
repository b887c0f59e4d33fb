/**
 * What a plan is checked for before anything is applied (docs/COMMANDS.md "Desired state"): each
 * kind's own refusals (its adapter's `refuse`: roles the target does not know and role lists that
 * lock their users out, kinds/privileges.ts; dataset changes the target would refuse,
 * kinds/datasets.ts), then, across kinds, plans that would leave no administrator who can log in
 * with a password, or take roles from the identity stor uses.
 */
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { groupNames, healthOf } from '../privilege/model.js';
import { primaryGroupName } from '../user/model.js';
import { namesOf, privilegesIn, usersIn } from './kinds/accounts.js';
import { apiKeys } from './kinds/api-keys.js';
import { KINDS } from './kinds/index.js';
import type { AnyKind, Step, World } from './kinds/kind.js';

/** Each kind's refusals, in the table's order, each given its own steps; the first throws. */
export function checkKinds(world: World, steps: readonly Step[], force: boolean): void {
  for (const kind of KINDS as readonly AnyKind[])
    kind.refuse?.(
      world,
      steps.filter((s) => s.change.kind === kind.key),
      force,
      steps,
    );
}

interface Account {
  locked: boolean;
  passwordDisabled: boolean;
  groups: Set<string>;
}

/** Accounts and privileges after the plan, by name, as apply would leave them (groups first, then users). */
function afterPlan(world: World, steps: readonly Step[]) {
  const { groupById } = namesOf(world);
  const accounts = new Map<string, Account>();
  for (const u of usersIn(world)) {
    const groups = new Set(u.groups.map((id) => groupById.get(id) ?? String(id)));
    const primary = primaryGroupName(u);
    if (primary !== null) groups.add(primary);
    accounts.set(u.username, { locked: u.locked, passwordDisabled: u.password_disabled, groups });
  }
  const privileges = new Map(privilegesIn(world).map((p) => [p.name, { groups: groupNames(p), roles: p.roles }]));
  const before = {
    accounts: new Map([...accounts].map(([k, v]) => [k, { ...v, groups: new Set(v.groups) }])),
    privileges: new Map(privileges),
  };
  for (const s of steps) {
    const { kind, name, action } = s.change;
    if (kind === 'groups' && action !== 'delete' && s.want && 'members' in s.want && s.want.members) {
      const members = new Set(s.want.members);
      for (const [user, a] of accounts)
        if (members.has(user)) a.groups.add(name);
        else a.groups.delete(name);
    }
    if (kind === 'users') {
      if (action === 'delete') accounts.delete(name);
      else if (s.want) {
        const want = s.want as { group?: string; groups?: string[]; password_disabled?: true };
        const a = accounts.get(name) ?? { locked: false, passwordDisabled: true, groups: new Set<string>() };
        if (want.groups !== undefined) a.groups = new Set([...want.groups, ...(want.group ? [want.group] : [])]);
        if (want.password_disabled) a.passwordDisabled = true;
        accounts.set(name, a);
      }
    }
    if (kind === 'groups' && action === 'delete') for (const a of accounts.values()) a.groups.delete(name);
    if (kind === 'privileges') {
      if (action === 'delete') privileges.delete(name);
      else if (s.want) {
        const want = s.want as { groups?: string[]; roles?: string[] };
        const old = privileges.get(name) ?? { groups: [], roles: [] };
        privileges.set(name, { groups: want.groups ?? old.groups, roles: want.roles ?? old.roles });
      }
    }
  }
  return { before, after: { accounts, privileges } };
}

type Snapshot = ReturnType<typeof afterPlan>['after'];

function effectiveRoles(world: World, s: Snapshot, user: string): Set<string> {
  const a = s.accounts.get(user);
  const out = new Set<string>();
  if (!a) return out;
  for (const p of s.privileges.values()) {
    if (!p.groups.some((g) => a.groups.has(g))) continue;
    const h = healthOf(world.roles, p.roles);
    if (h.locksOut) continue;
    for (const r of h.effective) out.add(r);
  }
  return out;
}

const administrators = (world: World, s: Snapshot): string[] =>
  [...s.accounts]
    .filter(([name, a]) => !a.locked && !a.passwordDisabled && effectiveRoles(world, s, name).has('FULL_ADMIN'))
    .map(([name]) => name);

/**
 * Refuses (PLAN_REFUSED) a plan that leaves no unlocked, password-enabled full administrator where
 * there was one, that takes any effective role from the identity stor is logged in as, or that
 * deletes the API key it logs in with (`keyId`: the run would lose its login midway); `force` lets it through.
 */
export function checkAdministrators(world: World, steps: readonly Step[], force: boolean, keyId?: number): string[] {
  const { before, after } = afterPlan(world, steps);
  const problems: string[] = [];
  const adminsBefore = administrators(world, before);
  if (adminsBefore.length > 0 && administrators(world, after).length === 0) {
    problems.push(`it leaves no unlocked, password-enabled administrator (today: ${adminsBefore.join(', ')})`);
  }
  const mine = effectiveRoles(world, before, world.me);
  const kept = effectiveRoles(world, after, world.me);
  // FULL_ADMIN first: when it goes, that is the news.
  const lost = [...mine]
    .filter((r) => !kept.has(r))
    .sort((a, b) => Number(b === 'FULL_ADMIN') - Number(a === 'FULL_ADMIN'));
  if (lost.length > 0)
    problems.push(
      `it removes roles from ${world.me}, the identity stor is using: ${lost.slice(0, 8).join(', ')}${lost.length > 8 ? ` and ${lost.length - 8} more` : ''}`,
    );
  const ownKey = keyId === undefined ? undefined : apiKeys.live(world).find((k) => k.id === keyId);
  if (
    ownKey &&
    steps.some((s) => s.change.kind === 'api_keys' && s.change.action === 'delete' && s.change.name === ownKey.name)
  ) {
    problems.push(`it deletes API key ${ownKey.name}, the key stor is logged in with`);
  }
  if (problems.length && !force) {
    throw new StorError(E.PLAN_REFUSED, `refusing this plan: ${problems.join('; ')}; nothing was changed`, {
      hint: 'change the file, or add --force if that is what you want',
    });
  }
  return problems;
}
