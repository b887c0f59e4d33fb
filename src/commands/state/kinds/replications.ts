/**
 * Replication tasks (`replications`): matched by name; only the fields the file sets are compared,
 * the snapshot tasks a PUSH sends named by their identity `DATASET@SCHEMA` (as `snapshot_tasks:`
 * names them), never by id, so a file can make a task and the replication that sends its snapshots
 * in one apply: the ids are looked up when the replication's step runs, after the tasks' steps.
 * Made after the snapshot tasks it binds, deleted before them (the appliance refuses deleting the
 * last task bound to an enabled replication, MW/plugins/snapshot.py:269-280). A replication has a
 * name but no free-text field, so stor's mark is the root dataset's, as a snapshot task's is
 * (ownership.ts; docs/STATE.md "Replications").
 */
import { validateParams } from '../../../core/appliance/params.js';
import { pythonNameRegexError } from '../../../core/appliance/replication/python-regex.js';
import { call, queryItems } from '../../../core/contract/client.js';
import { DEFAULT_SNAPSHOT_TASK_SCHEDULE, type PoolSnapshotTaskCron } from '../../../core/contract/pool-snapshottask.js';
import {
  boundEnabledChecks,
  credentialChecks,
  directionChecks,
  excludeChecks,
  nameRegexChecks,
  retentionChecks,
  scheduleChecks,
} from '../../../core/contract/replication-checks.js';
import { replicationContract, type ReplicationEntry } from '../../../core/contract/replication.js';
import { E } from '../../../core/error-catalogue.js';
import { ERRNO, RpcError, StorError, rpcErrors, type ValidationTriple } from '../../../core/errors.js';
import { identityValue, partOf, stateReplicationSchema } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import { madeByStor } from '../ownership.js';
import type { FieldChange } from '../plan-model.js';
import {
  lifetimeOf,
  lifetimeText,
  scheduleOf,
  scheduleShown,
  scheduleText,
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
  type Step,
  type World,
} from './kind.js';
import { markName } from './mark.js';

type Want = DesiredOf<'replications'>;
type Live = ReplicationEntry;

const replicationsIn = (world: World): readonly Live[] => world.objects.replications as readonly Live[];
const named = (world: World, name: string): Live[] => replicationsIn(world).filter((r) => r.name === name);

/** A snapshot task's identity, as its section joins dataset and naming schema (core/state/sections.ts). */
const taskIdentity = (t: { dataset: string; naming_schema: string }): string =>
  identityValue(partOf('snapshot_tasks').identity, t);

/** An SSH credential as the file names it (by name or id), or as the entry carries it. */
type Credential = number | string | { id: number; name: string } | null;

/** The fields the file can set, in the appliance's terms (snapshot tasks by identity, the credential as named). */
interface Values {
  direction: Live['direction'];
  transport?: Live['transport'];
  ssh_credentials: Credential;
  source_datasets?: string[];
  target_dataset?: string;
  recursive: boolean;
  exclude: string[];
  periodic_snapshot_tasks: string[];
  also_include_naming_schema: string[];
  naming_schema: string[];
  name_regex: string | null;
  auto: boolean;
  schedule: PoolSnapshotTaskCron | null;
  retention_policy: Live['retention_policy'];
  lifetime_value: number | null;
  lifetime_unit: Live['lifetime_unit'];
  allow_from_scratch: boolean;
  readonly: Live['readonly'];
  enabled: boolean;
}

/**
 * A fresh task: ReplicationCreate's defaults (MW/api/v25_10_1/replication.py:41-189), and for the
 * fields it requires, stor's: PUSH, not recursive, automatic, retention NONE (keeps every
 * snapshot on the target). transport, source_datasets and target_dataset are the file's to give.
 */
const FRESH: Values = {
  direction: 'PUSH',
  ssh_credentials: null,
  recursive: false,
  exclude: [],
  periodic_snapshot_tasks: [],
  also_include_naming_schema: [],
  naming_schema: [],
  name_regex: null,
  auto: true,
  schedule: null,
  retention_policy: 'NONE',
  lifetime_value: null,
  lifetime_unit: null,
  allow_from_scratch: false,
  readonly: 'SET',
  enabled: true,
};

/** The live task's values. */
const valuesOf = (r: Live): Values => ({
  direction: r.direction,
  transport: r.transport,
  ssh_credentials: r.ssh_credentials
    ? { id: Number(r.ssh_credentials.id), name: String(r.ssh_credentials.name) }
    : null,
  source_datasets: r.source_datasets,
  target_dataset: r.target_dataset,
  recursive: r.recursive,
  exclude: r.exclude,
  periodic_snapshot_tasks: r.periodic_snapshot_tasks.map(taskIdentity),
  also_include_naming_schema: r.also_include_naming_schema,
  naming_schema: r.naming_schema,
  name_regex: r.name_regex,
  auto: r.auto,
  schedule: r.schedule,
  retention_policy: r.retention_policy,
  lifetime_value: r.lifetime_value,
  lifetime_unit: r.lifetime_unit,
  allow_from_scratch: r.allow_from_scratch,
  readonly: r.readonly,
  enabled: r.enabled,
});

const lifetimeOfValues = (v: Values): Lifetime | null =>
  v.lifetime_value !== null && v.lifetime_unit !== null ? { value: v.lifetime_value, unit: v.lifetime_unit } : null;
const credentialShown = (c: Credential): unknown => (c !== null && typeof c === 'object' ? c.name : c);

type Field = Compared<keyof Want, Values>;

const PLAIN = [
  'direction',
  'transport',
  'ssh_credentials',
  'source_datasets',
  'target_dataset',
  'recursive',
  'exclude',
  'periodic_snapshot_tasks',
  'also_include_naming_schema',
  'naming_schema',
  'name_regex',
  'auto',
  'schedule',
  'retention_policy',
  'lifetime',
  'allow_from_scratch',
  'readonly',
  'enabled',
] as const satisfies readonly (keyof Want)[];
const SETS = new Set<string>(['exclude', 'periodic_snapshot_tasks', 'also_include_naming_schema', 'naming_schema']);

function compared(want: Want, base: Values): Field[] {
  const out: Field[] = [];
  for (const f of PLAIN) {
    if (want[f] === undefined) continue;
    if (f === 'lifetime') {
      const l = lifetimeOf(want.lifetime!);
      out.push({
        field: f,
        params: { lifetime_value: l.value, lifetime_unit: l.unit },
        shown: (v) => {
          const have = lifetimeOfValues(v);
          return have ? lifetimeText(have) : null;
        },
      });
    } else if (f === 'schedule') {
      const s = want.schedule!;
      out.push({
        field: f,
        params: { schedule: s === null ? null : scheduleOf(s, base.schedule ?? DEFAULT_SNAPSHOT_TASK_SCHEDULE) },
        shown: (v) => (v.schedule ? scheduleShown(v.schedule) : null),
      });
    } else if (f === 'retention_policy' && want.retention_policy !== 'CUSTOM' && want.lifetime === undefined) {
      // Beside any policy but CUSTOM the appliance refuses a lifetime (MW/plugins/replication.py:533-539): leaving CUSTOM clears it.
      out.push({
        field: f,
        params: { retention_policy: want.retention_policy, lifetime_value: null, lifetime_unit: null },
        shown: (v) => v.retention_policy,
      });
    } else {
      out.push({
        field: f,
        params: { [f]: want[f] } as Partial<Values>,
        shown: (v) => (f === 'ssh_credentials' ? credentialShown(v[f]) : SETS.has(f) ? sorted(v[f] as string[]) : v[f]),
      });
    }
  }
  return out;
}

function sameValue(k: string, have: unknown, want: unknown): boolean {
  if (SETS.has(k)) return sameSet(have as string[], want as string[]);
  if (k === 'source_datasets') return JSON.stringify(have) === JSON.stringify(want);
  if (k === 'schedule') {
    if (have === null || want === null) return have === want;
    return Object.keys(DEFAULT_SNAPSHOT_TASK_SCHEDULE).every(
      (f) => (have as Record<string, unknown>)[f] === (want as Record<string, unknown>)[f],
    );
  }
  if (k === 'ssh_credentials' && have !== null && typeof have === 'object') {
    const c = have as { id: number; name: string };
    return typeof want === 'number' ? c.id === want : c.name === want;
  }
  return have === want;
}

/** What the file changes of a live task (or sets on a new one), in the appliance's terms. */
const paramsOf = (want: Want, have: Values): Partial<Values> => changedParams(compared(want, have), have, sameValue);

/** The ids the appliance takes: the snapshot tasks' by identity, the credential's by name (one query each). */
async function withIds(t: Transport, params: Partial<Values>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...params };
  if (params.periodic_snapshot_tasks !== undefined) {
    const tasks = (await queryItems(t, 'pool.snapshottask.query', ['id'])) as {
      id: number;
      dataset: string;
      naming_schema: string;
    }[];
    out.periodic_snapshot_tasks = params.periodic_snapshot_tasks.map((name) => {
      const found = tasks.filter((s) => taskIdentity(s) === name);
      if (found.length !== 1) throw new StorError(E.NOT_FOUND, `no one snapshot task takes ${name}`);
      return found[0]!.id;
    });
  }
  const c = params.ssh_credentials;
  if (typeof c === 'string') {
    const found = await queryItems(
      t,
      'keychaincredential.query',
      ['id'],
      [
        ['name', '=', c],
        ['type', '=', 'SSH_CREDENTIALS'],
      ],
    );
    if (found.length !== 1) throw new StorError(E.NOT_FOUND, `no SSH credential named ${c} in the keychain`);
    out.ssh_credentials = found[0]!.id;
  }
  return out;
}

const replicationsAt = async (t: Transport, name: string): Promise<Live[]> =>
  (await queryItems(t, 'replication.query', ['id'], [['name', '=', name]])) as Live[];

/** A bound snapshot task as the run leaves it: the target's, the file's step laid over it, or the file's new one. */
interface BoundTask {
  dataset: string;
  recursive: boolean;
  exclude: readonly string[];
  enabled: boolean;
}

function tasksAfterRun(world: World, all: readonly Step[]): Map<string, BoundTask> {
  const out = new Map<string, BoundTask>();
  for (const t of world.objects.snapshot_tasks as readonly (BoundTask & { naming_schema: string })[])
    out.set(taskIdentity(t), t);
  for (const s of all) {
    if (s.change.kind !== 'snapshot_tasks') continue;
    if (s.change.action === 'delete') out.delete(s.change.name);
    else if (s.want) {
      const was = out.get(s.change.name);
      const w = s.want as Partial<BoundTask> & { dataset: string };
      out.set(s.change.name, {
        dataset: w.dataset,
        recursive: w.recursive ?? was?.recursive ?? false,
        exclude: w.exclude ?? was?.exclude ?? [],
        enabled: w.enabled ?? was?.enabled ?? true,
      });
    }
  }
  return out;
}

/**
 * `_validate`'s checks (MW/plugins/replication.py:344-549 at TS-25.10.1; stable/26 :350-675) that
 * the reads tell, in its order and words (core/contract/replication-checks.ts): the bound tasks
 * (there after the run, enabled, their excludes), what a PUSH or PULL needs, the credential a
 * transport needs, exclude, schedule, name regex, retention. Not told from reads: the PULL role
 * check, a credential named that is not there.
 */
function validateErrors(d: Values, tasks: readonly (BoundTask | undefined)[], schema: string, release26: boolean) {
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string) => errors.push([`${schema}.${field}`, message, ERRNO.EINVAL]);
  const checked = { ...d, source_datasets: d.source_datasets! };
  const bound = directionChecks(add, checked, tasks);
  credentialChecks(add, checked);
  excludeChecks(add, checked, bound);
  scheduleChecks(add, checked);
  nameRegexChecks(add, checked, bound, pythonNameRegexError);
  retentionChecks(add, checked, release26);
  boundEnabledChecks(add, checked, bound);
  return errors;
}

export const replications: KindAdapter<'replications', Live> = {
  key: 'replications',
  schema: stateReplicationSchema,
  read: async (t) => (await queryItems(t, 'replication.query', ['id'])) as Live[],
  live: replicationsIn,
  readOne: async (t, name) => ({ replications: await replicationsAt(t, name) }),

  plan(want, world, ctx) {
    const have = named(world, want.name);
    if (have.length === 0) {
      const after = { ...FRESH, ...paramsOf(want, FRESH) };
      return stepOf(
        'replications',
        want,
        'create',
        compared(want, FRESH).map((c) => ({ field: c.field, from: null, to: c.shown(after) })),
      );
    }
    if (have.length > 1) {
      ctx.note(
        `replication ${want.name}: ${have.length} replications have this name (ids ${have.map((r) => r.id).join(', ')}); left as they are`,
      );
      return null;
    }
    const live = valuesOf(have[0]!);
    const changes: FieldChange[] = compared(want, live)
      .filter((c) => differs(c, live, sameValue))
      .map((c) => ({ field: c.field, from: c.shown(live), to: c.shown({ ...live, ...c.params }) }));
    return stepOf('replications', want, 'update', changes);
  },

  prune: (world, names) =>
    replicationsIn(world)
      .filter((r) => !names.has(r.name) && madeByStor(world.marks, 'replication', r.name, r.id))
      .map((r) => r.name),

  exists: (world, name) => named(world, name).length > 0,

  /**
   * What the appliance would refuse, from the reads the plan made: its model (replication.create's
   * params, contract/replication.ts), then `_validate`'s checks the reads tell (validateErrors), the
   * snapshot tasks as the run leaves them. In its words.
   */
  refuse(world, steps, _force, all) {
    const after = tasksAfterRun(world, all);
    const release26 = (world.roles.model.release ?? '').startsWith('26');
    for (const s of steps) {
      if (s.change.action === 'delete' || !s.want) continue;
      const [live] = named(world, s.change.name);
      const schema = live ? 'replication_update' : 'replication_create';
      const d: Values = { ...(live ? valuesOf(live) : FRESH), ...paramsOf(s.want, live ? valuesOf(live) : FRESH) };
      // The model sees ids: stand-ins, one per task and one for a credential (looked up when the step runs).
      const { ssh_credentials: _c, periodic_snapshot_tasks: _p, lifetime_value: _v, lifetime_unit: _u, ...rest } = d;
      const data = {
        name: s.want.name,
        // A field a create needs and the file leaves out is absent, as the appliance sees it ("Field required").
        ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
        ssh_credentials: d.ssh_credentials === null ? null : 1,
        periodic_snapshot_tasks: d.periodic_snapshot_tasks.map((_, i) => i + 1),
        lifetime_value: d.lifetime_value,
        lifetime_unit: d.lifetime_unit,
      };
      let refusal: RpcError | null = null;
      try {
        validateParams(replicationContract['replication.create'].params, [data]);
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        refusal = err;
      }
      if (!refusal) {
        const tasks = d.periodic_snapshot_tasks.map((id) => after.get(id));
        const errors = validateErrors(d, tasks, schema, release26);
        if (errors.length > 0) refusal = rpcErrors.validation(errors);
      }
      if (refusal) {
        refusal.hint = `the file's replication ${s.change.name}: the target would refuse this ${s.change.action}; nothing was changed`;
        throw refusal;
      }
    }
  },

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    if (action === 'create') {
      const params = await withIds(t, { ...FRESH, ...paramsOf(step.want!, FRESH) });
      const created = await call(t, 'replication.create', [{ name, ...params } as never]);
      await markName(t, world, 'replication', name, created.id);
      return;
    }
    const found = await replicationsAt(t, name);
    if (action === 'update') {
      if (found.length !== 1) throw new StorError(E.NOT_FOUND, `no one replication is named ${name}`);
      const params = await withIds(t, paramsOf(step.want!, valuesOf(found[0]!)));
      await call(t, 'replication.update', [found[0]!.id, params as never]);
      return;
    }
    for (const r of found) await call(t, 'replication.delete', [r.id]);
    await markName(t, world, 'replication', name, null);
  },

  /** Each task with what a create needs, and what else differs from a fresh task's. */
  export: (world) =>
    replicationsIn(world)
      .filter((r, i, all) => all.findIndex((o) => o.name === r.name) === i)
      .map((r) => {
        const v = valuesOf(r);
        const lifetime = lifetimeOfValues(v);
        const unless = <K extends keyof Values>(k: K, fresh: (x: Values[K]) => boolean) =>
          fresh(v[k]) ? {} : { [k]: v[k] };
        return {
          name: r.name,
          direction: v.direction,
          // SSH+NETCAT, which the file does not take, is written as it is: reading it back says so.
          transport: v.transport as Want['transport'],
          ...(r.ssh_credentials ? { ssh_credentials: String(r.ssh_credentials.name) } : {}),
          source_datasets: [...r.source_datasets],
          target_dataset: r.target_dataset,
          recursive: v.recursive,
          ...unless('exclude', (x) => x.length === 0),
          ...unless('periodic_snapshot_tasks', (x) => x.length === 0),
          ...unless('also_include_naming_schema', (x) => x.length === 0),
          ...unless('naming_schema', (x) => x.length === 0),
          ...unless('name_regex', (x) => x === null),
          auto: v.auto,
          ...(v.schedule ? { schedule: scheduleText(v.schedule) } : {}),
          retention_policy: v.retention_policy,
          ...(lifetime ? { lifetime: lifetimeText(lifetime) } : {}),
          ...unless('allow_from_scratch', (x) => x === FRESH.allow_from_scratch),
          ...unless('readonly', (x) => x === FRESH.readonly),
          ...unless('enabled', (x) => x === FRESH.enabled),
        } as Want;
      }),
};
