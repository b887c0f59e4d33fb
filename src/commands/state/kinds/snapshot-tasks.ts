/**
 * Periodic snapshot tasks (`snapshot_tasks`): matched by dataset and naming schema together (the
 * plan names one `tank/data@auto-%Y-%m-%d_%H-%M`); only the fields the file sets are compared, in
 * the appliance's terms (lifetime_value/lifetime_unit, the schedule object). Made after the
 * datasets they snapshot, deleted before them. A task has no free-text field, so stor's mark is the
 * root dataset's, as a group's is (ownership.ts). Before `apply` asks, the plan notes the snapshots
 * a change or a delete lets go, as the appliance answers its two `*_will_change_retention_for`
 * reads (docs/STATE.md "Snapshot tasks").
 */
import { validateParams } from '../../../core/appliance/params.js';
import { call, queryItems } from '../../../core/contract/client.js';
import {
  DEFAULT_SNAPSHOT_TASK_SCHEDULE,
  poolSnapshotTaskContract,
  type PoolSnapshotTaskChanges,
  type PoolSnapshotTaskEntry,
} from '../../../core/contract/pool-snapshottask.js';
import { E } from '../../../core/error-catalogue.js';
import { ERRNO, RpcError, StorError, rpcErrors, type ValidationTriple } from '../../../core/errors.js';
import { identityValue, partOf, stateSnapshotTaskSchema } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import {
  lifetimeOf,
  lifetimeText,
  scheduleOf,
  scheduleShown,
  scheduleText,
  shortenedAway,
  type Lifetime,
} from '../snapshot-task-values.js';
import {
  changedParams,
  differs,
  sameSet,
  sorted,
  stepOf,
  type Compared,
  type DesiredOf,
  type KindAdapter,
  type World,
} from './kind.js';
import { markName } from './mark.js';

type Want = DesiredOf<'snapshot_tasks'>;
type Task = PoolSnapshotTaskEntry;

const tasksIn = (world: World): readonly Task[] => world.objects.snapshot_tasks as readonly Task[];

/** A task's identity, as its section joins dataset and naming schema (core/state/sections.ts): `tank/a@auto-…`. */
const identityOf = (t: { dataset: string; naming_schema: string }): string =>
  identityValue(partOf('snapshot_tasks').identity, t);
/** Back to the two: no dataset name holds `@` (ZFS keeps it for snapshots). */
const splitIdentity = (name: string): { dataset: string; naming_schema: string } => {
  const at = name.indexOf('@');
  return { dataset: name.slice(0, at), naming_schema: name.slice(at + 1) };
};
const tasksNamed = (world: World, name: string): Task[] => tasksIn(world).filter((t) => identityOf(t) === name);

/** The fields a fresh task has (PoolSnapshotTaskCreate's defaults, MW/api/v25_10_1/pool_snapshottask.py:29-47). */
type Values = Pick<
  Task,
  'recursive' | 'exclude' | 'lifetime_value' | 'lifetime_unit' | 'enabled' | 'allow_empty' | 'schedule'
>;
const FRESH: Values = {
  recursive: false,
  exclude: [],
  lifetime_value: 2,
  lifetime_unit: 'WEEK',
  enabled: true,
  allow_empty: true,
  schedule: DEFAULT_SNAPSHOT_TASK_SCHEDULE,
};
const liveLifetime = (v: Pick<Values, 'lifetime_value' | 'lifetime_unit'>): Lifetime => ({
  value: v.lifetime_value,
  unit: v.lifetime_unit,
});

type Field = Compared<keyof Want, Values>;

function compared(want: Want, base: Values): Field[] {
  const out: Field[] = [];
  const plain = (f: 'recursive' | 'allow_empty' | 'enabled') => {
    if (want[f] !== undefined) out.push({ field: f, params: { [f]: want[f] }, shown: (v) => v[f] });
  };
  plain('recursive');
  if (want.exclude !== undefined)
    out.push({ field: 'exclude', params: { exclude: want.exclude }, shown: (v) => sorted(v.exclude) });
  if (want.lifetime !== undefined) {
    const l = lifetimeOf(want.lifetime);
    out.push({
      field: 'lifetime',
      params: { lifetime_value: l.value, lifetime_unit: l.unit },
      shown: (v) => lifetimeText(liveLifetime(v)),
    });
  }
  if (want.schedule !== undefined)
    out.push({
      field: 'schedule',
      params: { schedule: scheduleOf(want.schedule, base.schedule) },
      shown: (v) => scheduleShown(v.schedule),
    });
  plain('allow_empty');
  plain('enabled');
  return out;
}

const sameValue = (k: string, have: unknown, want: unknown): boolean =>
  k === 'exclude'
    ? sameSet(have as string[], want as string[])
    : k === 'schedule'
      ? Object.keys(FRESH.schedule).every(
          (f) => (have as Record<string, unknown>)[f] === (want as Record<string, unknown>)[f],
        )
      : have === want;

/** What the file changes of a live task (or sets on a new one), in the appliance's terms. */
const paramsOf = (want: Want, have: Values): Partial<Values> => changedParams(compared(want, have), have, sameValue);

/** The target's replications, each with whether it binds a task (by id: the entry carries its bound tasks). */
const bindingReplications = (world: World) =>
  (
    world.objects.replications as readonly {
      id: number;
      name: string;
      enabled: boolean;
      periodic_snapshot_tasks: { id: number }[];
    }[]
  ).map((r) => ({ ...r, binds: (id: number) => r.periodic_snapshot_tasks.some((b) => b.id === id) }));

async function tasksAt(t: Transport, name: string): Promise<Task[]> {
  const { dataset, naming_schema } = splitIdentity(name);
  return (await queryItems(
    t,
    'pool.snapshottask.query',
    ['id'],
    [
      ['dataset', '=', dataset],
      ['naming_schema', '=', naming_schema],
    ],
  )) as Task[];
}

/** `{dataset: [name, …]}` (task_retention.py:32-35) as `DATASET@NAME`s. */
const snapshotIds = (byDataset: Record<string, string[]>): string[] =>
  Object.entries(byDataset).flatMap(([ds, names]) => names.map((n) => `${ds}@${n}`));

const listed = (ids: readonly string[]): string =>
  `${ids.length} snapshot(s): ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ` and ${ids.length - 20} more` : ''}`;

export const snapshotTasks: KindAdapter<'snapshot_tasks', Task> = {
  key: 'snapshot_tasks',
  schema: stateSnapshotTaskSchema,
  read: async (t) => (await queryItems(t, 'pool.snapshottask.query', ['id'])) as Task[],
  live: tasksIn,
  readOne: async (t, name) => ({ snapshot_tasks: await tasksAt(t, name) }),

  plan(want, world, ctx) {
    const name = identityOf(want);
    const have = tasksNamed(world, name);
    if (have.length === 0) {
      const after = { ...FRESH, ...paramsOf(want, FRESH) };
      return stepOf(
        'snapshot_tasks',
        want,
        'create',
        compared(want, FRESH).map((c) => ({ field: c.field, from: null, to: c.shown(after) })),
      );
    }
    if (have.length > 1) {
      ctx.note(
        `snapshot task ${name}: ${have.length} tasks take these snapshots (ids ${have.map((s) => s.id).join(', ')}); left as they are`,
      );
      return null;
    }
    const live = have[0]!;
    const changes: FieldChange[] = compared(want, live)
      .filter((c) => differs(c, live, sameValue))
      .map((c) => ({ field: c.field, from: c.shown(live), to: c.shown({ ...live, ...c.params }) }));
    return stepOf('snapshot_tasks', want, 'update', changes);
  },

  /**
   * A task a replication that stays binds stays too (the file names the replication, or stor did not
   * make it): deleting it changes what that replication sends, and the appliance refuses deleting
   * the last task of an enabled one (MW/plugins/snapshot.py:269-280).
   */
  prune(world, named, gone, note) {
    const going = new Set(gone.filter((c) => c.kind === 'replications').map((c) => c.name));
    const staying = bindingReplications(world).filter((r) => !going.has(r.name));
    return tasksIn(world)
      .filter((s) => !named.has(identityOf(s)) && madeByStor(world.marks, 'snapshot_task', identityOf(s), s.id))
      .filter((s) => {
        const by = staying.find((r) => r.binds(s.id));
        if (by)
          note(
            `snapshot task ${identityOf(s)}: stor made it, but replication ${by.name}, which sends its snapshots, stays; --prune leaves it`,
          );
        return !by;
      })
      .map(identityOf);
  },

  exists: (world, name) => tasksNamed(world, name).length > 0,

  /**
   * What the appliance would refuse, from the reads the plan made: its model (the naming schema as
   * zettarepl validates it, the schedule as CronModel parses it: contract/snapshot-naming-schema.ts,
   * contract/cron.ts), then `_validate` (MW/plugins/snapshot.py:334-356): the dataset (there, or
   * made by this run), exclude only for a recursive task and only under its dataset. In its words.
   */
  refuse(world, steps, _force, all) {
    const made = new Set(
      all.filter((s) => s.change.kind === 'datasets' && s.change.action === 'create').map((s) => s.change.name),
    );
    const datasets = world.objects.datasets as readonly { id: string }[];
    for (const s of steps) {
      if (s.change.action === 'delete' || !s.want) continue;
      const live = tasksNamed(world, s.change.name)[0];
      const schema = live ? 'periodic_snapshot_update' : 'periodic_snapshot_create';
      const base: Values = live ?? FRESH;
      const data = {
        ...Object.fromEntries(Object.keys(FRESH).map((k) => [k, base[k as keyof Values]])),
        dataset: s.want.dataset,
        naming_schema: s.want.naming_schema,
        ...paramsOf(s.want, base),
      } as Values & { dataset: string; naming_schema: string };
      let refusal: RpcError | null = null;
      try {
        validateParams(poolSnapshotTaskContract['pool.snapshottask.create'].params, [data]);
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        refusal = err;
      }
      if (!refusal) {
        const errors: ValidationTriple[] = [];
        const add = (field: string, message: string) => errors.push([`${schema}.${field}`, message, ERRNO.EINVAL]);
        if (!made.has(data.dataset) && !datasets.some((d) => d.id === data.dataset))
          add('dataset', 'Dataset not found');
        if (!data.recursive && data.exclude.length > 0)
          add('exclude', 'Excluding datasets is not necessary for non-recursive periodic snapshot tasks');
        data.exclude.forEach((v, i) => {
          if (!v.startsWith(`${data.dataset}/`))
            add(`exclude.${i}`, 'Excluded dataset should be a child or other descendant of the selected dataset');
        });
        // An update disabling a task an enabled replication binds (MW/plugins/snapshot.py:202-211): the
        // replications' steps run after this one, so the target's replications are the ones it sees.
        const bound = live && !data.enabled && bindingReplications(world).find((r) => r.enabled && r.binds(live.id));
        if (bound)
          add(
            'enabled',
            `You can't disable this periodic snapshot task because it is bound to enabled replication task ${bound.id}`,
          );
        if (errors.length > 0) refusal = rpcErrors.validation(errors);
      }
      if (refusal) {
        refusal.hint = `the file's snapshot task ${s.change.name}: the target would refuse this ${s.change.action}; nothing was changed`;
        throw refusal;
      }
    }
  },

  /**
   * The snapshots a step lets go, asked of the appliance before anything changes (reads only):
   * an update's `update_will_change_retention_for` (snapshots no task would keep once the change is
   * made) and, for a shorter lifetime, the task's snapshots past it; a delete's
   * `delete_will_change_retention_for` (task_retention.py:16-55).
   */
  async warn(t, world, steps) {
    const notes: string[] = [];
    let clock: { now: number; tz: string } | undefined;
    for (const s of steps) {
      const [live] = tasksNamed(world, s.change.name);
      if (!live || s.change.action === 'create') continue;
      const label = `snapshot task ${s.change.name}`;
      if (s.change.action === 'delete') {
        const kept = snapshotIds(await call(t, 'pool.snapshottask.delete_will_change_retention_for', [live.id]));
        if (kept.length)
          notes.push(
            `${label}: deleting it leaves ${listed(kept)} to no task's retention: they stay until removed by hand`,
          );
        continue;
      }
      const params = paramsOf(s.want!, live) as PoolSnapshotTaskChanges;
      const left = snapshotIds(await call(t, 'pool.snapshottask.update_will_change_retention_for', [live.id, params]));
      if (left.length)
        notes.push(
          `${label}: this change leaves ${listed(left)} to no task's retention: they stay until removed by hand`,
        );
      if (params.lifetime_value === undefined) continue;
      const to: Lifetime = { value: params.lifetime_value, unit: params.lifetime_unit ?? live.lifetime_unit };
      const own = snapshotIds(await call(t, 'pool.snapshottask.delete_will_change_retention_for', [live.id]));
      if (own.length === 0) continue;
      if (!clock) {
        const info = await call(t, 'system.info');
        clock = { now: info.datetime.$date, tz: info.timezone };
      }
      const doomed = shortenedAway(own, live.naming_schema, liveLifetime(live), to, clock.now, clock.tz).filter(
        (id) => !left.includes(id),
      );
      if (doomed.length)
        notes.push(
          `${label}: the lifetime ${lifetimeText(to)} (now ${lifetimeText(liveLifetime(live))}) lets retention destroy ${listed(doomed)} at its next run`,
        );
    }
    return notes;
  },

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    if (action === 'create') {
      const { dataset, naming_schema } = step.want!;
      const created = await call(t, 'pool.snapshottask.create', [
        { dataset, naming_schema, ...paramsOf(step.want!, FRESH) },
      ]);
      await markName(t, world, 'snapshot_task', name, created.id);
      return;
    }
    const found = await tasksAt(t, name);
    if (action === 'update') {
      if (found.length !== 1) throw new StorError(E.NOT_FOUND, `no one snapshot task takes ${name}`);
      await call(t, 'pool.snapshottask.update', [found[0]!.id, paramsOf(step.want!, found[0]!)]);
      return;
    }
    for (const s of found) await call(t, 'pool.snapshottask.delete', [s.id]);
    await markName(t, world, 'snapshot_task', name, null);
  },

  /** Each task by its dataset and schema, its lifetime and schedule, and what else differs from a fresh task's. */
  export: (world) =>
    tasksIn(world)
      .filter((s, i, all) => all.findIndex((o) => identityOf(o) === identityOf(s)) === i)
      .map((s) => ({
        dataset: s.dataset,
        naming_schema: s.naming_schema,
        ...(s.recursive !== FRESH.recursive ? { recursive: s.recursive } : {}),
        ...(s.exclude.length ? { exclude: [...s.exclude] } : {}),
        lifetime: lifetimeText(liveLifetime(s)),
        schedule: scheduleText(s.schedule),
        ...(s.allow_empty !== FRESH.allow_empty ? { allow_empty: s.allow_empty } : {}),
        ...(s.enabled !== FRESH.enabled ? { enabled: s.enabled } : {}),
      })),
};
