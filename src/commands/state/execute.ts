/**
 * Carrying out a plan's steps, one object at a time, each verified by a read (the object planned
 * again must show no change). Stops at the first failure unless keep-going; the report says of
 * every object done, failed or not attempted.
 */
import { call, queryItems } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import { stateFileSchema, type StateApiKey, type StateDataset, type StateGroup, type StatePrivilege, type StateUser } from '../../core/state/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { listGroups } from '../group/model.js';
import { listUsers } from '../user/model.js';
import { createDataset, deleteDataset, updateDataset } from './datasets.js';
import { computePlan, expiryMs, type Step } from './diff.js';
import { markKey, markValue, type MarkedKind } from './ownership.js';
import type { PlannedChange } from './plan-model.js';
import { readWorld, type World } from './world.js';

export type StepStatus = 'done' | 'failed' | 'not_attempted';

/** One object's outcome in `stor apply --json`. */
export interface AppliedChange extends PlannedChange {
  status: StepStatus;
  /** Why it failed (the appliance's or stor's words). */
  error?: string;
}

/** A key made by apply: the secret goes to --keys-out or piped stdout, never into the state file or a log. */
export interface NewApiKey {
  name: string;
  user: string;
  id: number;
  key: string;
}

const MARKED: Record<string, MarkedKind> = { groups: 'group', users: 'user', privileges: 'privilege', api_keys: 'api_key' };

/** Marks the object stor made (`id`: the one the appliance gave it), or removes the mark (`id` null). */
async function markName(t: Transport, world: World, kind: MarkedKind, name: string, id: number | null): Promise<void> {
  if (world.marks.home === null) return;
  const key = markKey(kind, name);
  await call(t, 'pool.dataset.update', [world.marks.home, { user_properties_update: [id !== null ? { key, value: markValue(name, id) } : { key, remove: true }] }]);
}

async function mark(t: Transport, world: World, step: Step, id: number | null): Promise<void> {
  const kind = MARKED[step.change.kind];
  if (kind) await markName(t, world, kind, step.change.name, id);
}

const groupIds = async (t: Transport, names: readonly string[]) => {
  const groups = await listGroups(t);
  return names.map((n) => {
    const g = groups.find((x) => x.name === n);
    if (!g) throw new StorError(E.NOT_FOUND, `no local group named ${JSON.stringify(n)}`);
    return g;
  });
};

async function userIds(t: Transport, names: readonly string[]): Promise<number[]> {
  const users = await listUsers(t);
  // Members the file names that do not exist yet are made in the users step, which sets their groups.
  return names.flatMap((n) => users.filter((u) => u.username === n).map((u) => u.id));
}

async function runStep(t: Transport, world: World, step: Step, keys: NewApiKey[]): Promise<void> {
  const { kind, name, action } = step.change;
  switch (kind) {
    case 'groups': {
      const want = step.want as StateGroup | undefined;
      if (action === 'create') {
        const id = await call(t, 'group.create', [{ name, smb: false, ...(want?.gid !== undefined ? { gid: want.gid } : {}), users: await userIds(t, want?.members ?? []) }]);
        await mark(t, world, step, id);
      } else if (action === 'update') {
        const [g] = await groupIds(t, [name]);
        await call(t, 'group.update', [g!.id, { users: await userIds(t, want?.members ?? []) }]);
      } else {
        const [g] = await groupIds(t, [name]);
        await call(t, 'group.delete', [g!.id, { delete_users: false }]);
        await mark(t, world, step, null);
      }
      return;
    }
    case 'users': {
      const want = step.want as StateUser | undefined;
      const [existing] = await listUsers(t, [['username', '=', name]]);
      if (action === 'delete') {
        // delete_group false: a primary group is a group of its own, pruned (or kept) as one.
        if (existing) await call(t, 'user.delete', [existing.id, { delete_group: false }]);
        await mark(t, world, step, null);
        return;
      }
      const fields = {
        ...(want?.full_name !== undefined ? { full_name: want.full_name } : {}),
        ...(want?.groups !== undefined ? { groups: (await groupIds(t, want.groups)).map((g) => g.id) } : {}),
        ...(want?.shell !== undefined ? { shell: want.shell } : {}),
        ...(want?.home !== undefined ? { home: want.home } : {}),
      };
      const primaryName = want?.group ?? (action === 'create' ? name : undefined);
      const [primary] = primaryName !== undefined ? (await listGroups(t, [['name', '=', primaryName]])) : [];
      if (action === 'create') {
        // As `stor user create`: an existing group by id, else 25.10.1's group_create for one named like the user (MW/plugins/account.py:646-668).
        const group = primary ? { group: primary.id } : primaryName === name ? { group_create: true } : undefined;
        if (!group) throw new StorError(E.NOT_FOUND, `no local group named ${JSON.stringify(primaryName)} for ${name}'s primary group`);
        const created = await call(t, 'user.create', [{ username: name, full_name: want?.full_name ?? name, password_disabled: true, smb: false, ...fields, ...group }]);
        await mark(t, world, step, created.id);
        // The group 25.10.1 made for the user is stor's too: --prune may take it with the user.
        const madeGroup = created.group.id;
        if ('group_create' in group && typeof madeGroup === 'number') await markName(t, world, 'group', name, madeGroup);
      } else {
        if (!existing) throw new StorError(E.NOT_FOUND, `no user named ${JSON.stringify(name)}`);
        if (want?.group !== undefined && !primary) throw new StorError(E.NOT_FOUND, `no local group named ${JSON.stringify(want.group)}`);
        await call(t, 'user.update', [existing.id, { ...fields, ...(primary && want?.group !== undefined ? { group: primary.id } : {}), ...(want?.password_disabled ? { password_disabled: true, smb: false } : {}) }]);
      }
      return;
    }
    case 'privileges': {
      const want = step.want as StatePrivilege | undefined;
      const [existing] = await queryItems(t, 'privilege.query', ['id'], [['name', '=', name]]);
      if (action === 'delete') {
        if (existing) await call(t, 'privilege.delete', [existing.id]);
        await mark(t, world, step, null);
        return;
      }
      const fields = {
        ...(want?.groups !== undefined ? { local_groups: (await groupIds(t, want.groups)).map((g) => g.gid) } : {}),
        ...(want?.roles !== undefined ? { roles: want.roles } : {}),
        ...(want?.web_shell !== undefined ? { web_shell: want.web_shell } : {}),
      };
      if (action === 'create') {
        const created = await call(t, 'privilege.create', [{ name, web_shell: false, ...fields }]);
        await mark(t, world, step, created.id);
      } else {
        if (!existing) throw new StorError(E.NOT_FOUND, `no privilege named ${JSON.stringify(name)}`);
        await call(t, 'privilege.update', [existing.id, fields]);
      }
      return;
    }
    case 'datasets': {
      const want = step.want as StateDataset | undefined;
      if (action === 'create') await createDataset(t, want!);
      else if (action === 'update') {
        const have = world.datasets.find((d) => d.id === name);
        if (!have) throw new StorError(E.NOT_FOUND, `no dataset ${name}`);
        await updateDataset(t, want!, have);
      }
      else await deleteDataset(t, name);
      return;
    }
    case 'api_keys': {
      const want = step.want as StateApiKey | undefined;
      const expiresAt = want?.expires ? { $date: expiryMs(want.expires) } : null;
      if (action === 'create') {
        const created = await call(t, 'api_key.create', [{ name, username: want!.user, expires_at: expiresAt }]);
        keys.push({ name, user: want!.user, id: created.id, key: created.key });
        await mark(t, world, step, created.id);
        return;
      }
      const found = await queryItems(t, 'api_key.query', ['id'], [['name', '=', name]], { select: ['id'] });
      if (action === 'update') await call(t, 'api_key.update', [found[0]!.id, { expires_at: expiresAt }]);
      else {
        for (const k of found) await call(t, 'api_key.delete', [k.id]);
        await mark(t, world, step, null);
      }
      return;
    }
  }
}

/**
 * The read that verifies a step: the object planned again shows no change (a deleted one is gone).
 * `usersToCome`: users a later step of this run creates; a group's members among them are not expected yet.
 */
async function verify(t: Transport, step: Step, usersToCome: ReadonlySet<string>): Promise<void> {
  const world = await readWorld(t);
  const { kind, name, action } = step.change;
  let want = step.want as { name: string; members?: string[] } | undefined;
  if (action === 'delete') {
    const still =
      kind === 'groups' ? world.groups.some((g) => g.name === name)
      : kind === 'users' ? world.users.some((u) => u.username === name)
      : kind === 'privileges' ? world.privileges.some((p) => p.name === name)
      : kind === 'datasets' ? world.datasets.some((d) => d.id === name)
      : world.apiKeys.some((k) => k.name === name);
    if (still) throw new StorError(E.VERIFY_FAILED, `${kind} ${name} is still there after the delete`);
    return;
  }
  // A group's members the users step has yet to make are not expected yet; any other missing member is a failure.
  if (kind === 'groups' && want?.members) want = { ...want, members: want.members.filter((m) => !usersToCome.has(m) || world.users.some((u) => u.username === m)) };
  // A file of this one object, checked as any state file is (the key is computed, so the type is the schema's word).
  const file = stateFileSchema.parse({ stor_state: 1, [kind]: [want] });
  const again = computePlan(world, file, { prune: false, normalize: false }).plan.changes;
  if (again.length > 0) {
    const left = again.flatMap((c) => (c.action === 'create' ? ['not found'] : c.changes.map((f) => `${f.field} is ${JSON.stringify(f.from)}, not ${JSON.stringify(f.to)}`)));
    throw new StorError(E.VERIFY_FAILED, `${kind} ${name}: the read after the change disagrees: ${left.join('; ')}`);
  }
}

const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err)).trim().replace(/\s*\n\s*/g, '; ');

/** Runs the steps in order; after a failure the rest are not attempted unless keepGoing. */
export async function executeSteps(t: Transport, world: World, steps: readonly Step[], keepGoing: boolean): Promise<{ results: AppliedChange[]; keys: NewApiKey[] }> {
  const results: AppliedChange[] = [];
  const keys: NewApiKey[] = [];
  let stopped = false;
  const usersToCome = new Set(steps.filter((s) => s.change.kind === 'users' && s.change.action === 'create').map((s) => s.change.name));
  for (const step of steps) {
    if (stopped) {
      results.push({ ...step.change, status: 'not_attempted' });
      continue;
    }
    try {
      await runStep(t, world, step, keys);
      await verify(t, step, usersToCome);
      results.push({ ...step.change, status: 'done' });
    } catch (err) {
      results.push({ ...step.change, status: 'failed', error: describeError(err) });
      // Even a fault of stor's own (not the appliance's refusal) ends as a report, never a throw: the
      // keys made before it are in `keys`, shown once or written to --keys-out; a throw would lose them.
      // After such a fault nothing more is attempted, --keep-going or not.
      if (!keepGoing || !(err instanceof StorError || err instanceof RpcError)) stopped = true;
    }
  }
  return { results, keys };
}
