import type { StateApiKey, StateDataset, StateFile, StateGroup, StateKind, StatePrivilege, StateUser } from '../../core/state/index.js';
import { iso } from '../api-key/model.js';
import { groupNames, healthOf } from '../privilege/model.js';
import { primaryGroupName } from '../user/model.js';
import { diffDataset } from './datasets.js';
import { datasetMarked, madeByStor } from './ownership.js';
import type { FieldChange, PlannedChange, RoleOverlap, StatePlan } from './plan-model.js';
import type { World } from './world.js';

/** A planned change with the object the file wants (none for a delete). */
export type Step =
  | { change: PlannedChange & { kind: 'groups' }; want?: StateGroup }
  | { change: PlannedChange & { kind: 'users' }; want?: StateUser }
  | { change: PlannedChange & { kind: 'privileges' }; want?: StatePrivilege }
  | { change: PlannedChange & { kind: 'datasets' }; want?: StateDataset }
  | { change: PlannedChange & { kind: 'api_keys' }; want?: StateApiKey };

export interface PlanOptions {
  prune: boolean;
  normalize: boolean;
}

const sorted = (xs: readonly string[]): string[] => [...xs].sort();
const sameSet = (a: readonly string[], b: readonly string[]): boolean => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

function field(changes: FieldChange[], name: string, from: unknown, to: unknown, differs: boolean): void {
  if (differs) changes.push({ field: name, from, to });
}

/**
 * A file's key expiry in ms, as the appliance will keep it: whole seconds (it stores
 * `int(expires_at.timestamp())`, MW/plugins/api_key.py:142), so `…:00.567Z` plans, and reads back, as `…:00.000Z`.
 */
export const expiryMs = (expires: string): number => Math.floor(Date.parse(expires) / 1000) * 1000;

/** Usernames by user id and group names by group id, for comparing by name. */
export function namesOf(world: World) {
  return {
    userById: new Map(world.users.map((u) => [u.id, u.username])),
    groupById: new Map(world.groups.map((g) => [g.id, g.name])),
  };
}

/**
 * The plan: the file's objects against the target's, by name. What the file does not name is left
 * alone; with `prune`, deleted only when it carries stor's mark (ownership.ts).
 */
export function computePlan(world: World, desired: StateFile, options: PlanOptions): { plan: StatePlan; steps: Step[] } {
  const steps: Step[] = [];
  const notes: string[] = [];
  const overlaps: RoleOverlap[] = [];
  const { userById, groupById } = namesOf(world);

  for (const want of desired.groups ?? []) {
    const have = world.groups.find((g) => g.name === want.name);
    const changes: FieldChange[] = [];
    const members = have ? have.users.map((id) => userById.get(id) ?? String(id)) : [];
    if (!have) {
      if (want.gid !== undefined) changes.push({ field: 'gid', from: null, to: want.gid });
      if (want.members !== undefined) changes.push({ field: 'members', from: [], to: sorted(want.members) });
      steps.push({ change: { kind: 'groups', name: want.name, action: 'create', changes }, want });
      continue;
    }
    if (want.gid !== undefined && want.gid !== have.gid) notes.push(`group ${want.name}: gid is ${have.gid} on the target, ${want.gid} in the file; a gid is never changed in place`);
    if (want.members !== undefined) field(changes, 'members', sorted(members), sorted(want.members), !sameSet(members, want.members));
    if (changes.length) steps.push({ change: { kind: 'groups', name: want.name, action: 'update', changes }, want });
  }

  for (const want of desired.users ?? []) {
    const have = world.users.find((u) => u.username === want.name);
    const changes: FieldChange[] = [];
    if (!have) {
      changes.push({ field: 'full_name', from: null, to: want.full_name ?? want.name });
      changes.push({ field: 'group', from: null, to: want.group ?? want.name });
      if (want.groups !== undefined) changes.push({ field: 'groups', from: [], to: sorted(want.groups) });
      if (want.shell !== undefined) changes.push({ field: 'shell', from: null, to: want.shell });
      if (want.home !== undefined) changes.push({ field: 'home', from: null, to: want.home });
      changes.push({ field: 'password_disabled', from: null, to: true });
      steps.push({ change: { kind: 'users', name: want.name, action: 'create', changes }, want });
      continue;
    }
    const aux = have.groups.map((id) => groupById.get(id) ?? String(id));
    if (want.full_name !== undefined) field(changes, 'full_name', have.full_name, want.full_name, want.full_name !== have.full_name);
    if (want.group !== undefined) field(changes, 'group', primaryGroupName(have), want.group, want.group !== primaryGroupName(have));
    if (want.groups !== undefined) field(changes, 'groups', sorted(aux), sorted(want.groups), !sameSet(aux, want.groups));
    if (want.shell !== undefined) field(changes, 'shell', have.shell, want.shell, want.shell !== have.shell);
    if (want.home !== undefined) field(changes, 'home', have.home, want.home, want.home !== have.home);
    if (want.password_disabled === true) field(changes, 'password_disabled', have.password_disabled, true, !have.password_disabled);
    if (changes.length) steps.push({ change: { kind: 'users', name: want.name, action: 'update', changes }, want });
  }

  for (const original of desired.privileges ?? []) {
    let want = original;
    if (want.roles !== undefined) {
      const h = healthOf(world.roles, want.roles);
      const redundant = h.findings.filter((f) => f.kind === 'overlap' || f.kind === 'duplicate');
      if (redundant.length > 0) {
        const minimal = h.fix().after;
        overlaps.push({ privilege: want.name, roles: want.roles, minimal, findings: redundant.map((f) => f.effect) });
        if (options.normalize) want = { ...want, roles: minimal };
      }
    }
    const have = world.privileges.find((p) => p.name === want.name);
    const changes: FieldChange[] = [];
    if (!have) {
      changes.push({ field: 'groups', from: [], to: sorted(want.groups ?? []) });
      changes.push({ field: 'roles', from: [], to: want.roles ?? [] });
      changes.push({ field: 'web_shell', from: null, to: want.web_shell ?? false });
      steps.push({ change: { kind: 'privileges', name: want.name, action: 'create', changes }, want });
      continue;
    }
    const groups = groupNames(have);
    if (want.groups !== undefined) field(changes, 'groups', sorted(groups), sorted(want.groups), !sameSet(groups, want.groups));
    // Order is kept as written: it is what the appliance stores and `privilege check` indexes.
    if (want.roles !== undefined) field(changes, 'roles', have.roles, want.roles, JSON.stringify(have.roles) !== JSON.stringify(want.roles));
    if (want.web_shell !== undefined) field(changes, 'web_shell', have.web_shell, want.web_shell, want.web_shell !== have.web_shell);
    if (changes.length) steps.push({ change: { kind: 'privileges', name: want.name, action: 'update', changes }, want });
  }

  for (const want of desired.datasets ?? []) {
    const have = world.datasets.find((d) => d.id === want.name);
    const changes = diffDataset(want, have);
    if (!have) steps.push({ change: { kind: 'datasets', name: want.name, action: 'create', changes }, want });
    else if (changes.length) steps.push({ change: { kind: 'datasets', name: want.name, action: 'update', changes }, want });
  }

  for (const want of desired.api_keys ?? []) {
    const have = world.apiKeys.filter((k) => k.name === want.name);
    const expires = want.expires === undefined ? undefined : want.expires === null ? null : iso(expiryMs(want.expires));
    if (have.length === 0) {
      const changes: FieldChange[] = [{ field: 'user', from: null, to: want.user }, { field: 'expires', from: null, to: expires ?? null }];
      steps.push({ change: { kind: 'api_keys', name: want.name, action: 'create', changes }, want });
      continue;
    }
    if (have.length > 1) notes.push(`api key ${want.name}: ${have.length} keys have this name (ids ${have.map((k) => k.id).join(', ')}); left as they are`);
    const k = have[0]!;
    if (have.length === 1 && k.username !== want.user) notes.push(`api key ${want.name}: belongs to ${k.username ?? '(a deleted user)'} on the target, ${want.user} in the file; a key's user is never changed`);
    const now = k.expires_at ? iso(k.expires_at.$date) : null;
    if (have.length === 1 && expires !== undefined && expires !== now) {
      steps.push({ change: { kind: 'api_keys', name: want.name, action: 'update', changes: [{ field: 'expires', from: now, to: expires }] }, want });
    }
  }

  if (options.prune) steps.push(...pruneSteps(world, desired));
  const changes = steps.map((s) => s.change);
  return {
    plan: { pending: changes.length > 0, release: world.roles.model.release, catalogue: world.roles.source, changes, notes, overlaps },
    steps,
  };
}

/** Deletes for `--prune`: only objects the file does not name that carry stor's mark; in reverse dependency order. */
function pruneSteps(world: World, desired: StateFile): Step[] {
  const named = (kind: StateKind) => new Set((desired[kind] ?? []).map((o) => o.name));
  const del = <K extends StateKind>(kind: K, name: string) => ({ change: { kind, name, action: 'delete' as const, changes: [] } }) as Step;
  const out: Step[] = [];
  const keys = named('api_keys');
  for (const name of new Set(world.apiKeys.filter((k) => madeByStor(world.marks, 'api_key', k.name, k.id)).map((k) => k.name))) if (!keys.has(name)) out.push(del('api_keys', name));
  const datasets = named('datasets');
  for (const d of [...world.datasets].reverse()) if (!datasets.has(d.id) && datasetMarked(d.id, d.user_properties as Record<string, unknown>)) out.push(del('datasets', d.id));
  const privileges = named('privileges');
  for (const p of world.privileges) if (!privileges.has(p.name) && p.builtin_name === null && madeByStor(world.marks, 'privilege', p.name, p.id)) out.push(del('privileges', p.name));
  const users = named('users');
  for (const u of world.users) if (!users.has(u.username) && !u.builtin && madeByStor(world.marks, 'user', u.username, u.id)) out.push(del('users', u.username));
  const groups = named('groups');
  // A group still in use stays: the primary group of a user who stays (group.delete would move them
  // to nogroup, MW/plugins/account.py), or a group of a privilege that stays.
  const gone = new Set(out.map((s) => `${s.change.kind} ${s.change.name}`));
  const inUse = new Set([
    ...world.users.filter((u) => !gone.has(`users ${u.username}`)).map((u) => primaryGroupName(u)),
    ...world.privileges.filter((p) => !gone.has(`privileges ${p.name}`)).flatMap((p) => groupNames(p)),
  ]);
  for (const g of world.groups) if (!groups.has(g.name) && !g.builtin && madeByStor(world.marks, 'group', g.name, g.id) && !inUse.has(g.name)) out.push(del('groups', g.name));
  return out;
}
