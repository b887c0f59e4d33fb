import { queryItems } from '../../core/contract/client.js';
import { nameRegexTest } from '../../core/appliance/replication/python-regex.js';
import { targetDatasetOf } from '../../core/appliance/snapshot-tasks/dataset-tree.js';
import { tryParseSnapshotName } from '../../core/contract/snapshot-naming-schema.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { datasetFilter } from '../snapshot/model.js';
import { lifetimeMs } from '../../core/lifetime.js';
import { findReplication, type Replication, runStateOf, runTimeOf } from './model.js';

/** One source dataset of a task: its newest eligible snapshot, and the target's. */
export interface ReplicationSide {
  source: string;
  target: string;
  /** DATASET@NAME of the source's newest snapshot the task would copy; null when it has none. */
  source_newest: string | null;
  /** DATASET@NAME of the target's newest snapshot of those names; null when it has none (or no target yet). */
  target_newest: string | null;
  /** Whether the target holds the source's newest (by name): nothing new waits to be copied; null when one side is remote. */
  up_to_date: boolean | null;
  /** The side on another appliance (SSH transports: a PUSH's target, a PULL's source), not read; null for LOCAL. */
  remote: 'source' | 'target' | null;
}

/** What a bound periodic snapshot task's retention removes next. */
export interface RetentionNext {
  task: number;
  /** DATASET@NAME: of the task's snapshots but each dataset's newest, the one whose lifetime ends first. */
  snapshot: string;
  /**
   * When its lifetime ends, as the appliance's wall clock reads (`YYYY-MM-DDTHH:MM:SS`, no zone: the
   * name's own time plus the lifetime, a month 30 days and a year 365 as MW/plugins/zettarepl.py:64-80
   * count them). Approximate: retention destroys it at the task's first run after then, and not at
   * all while another task with a longer lifetime also names it, or a hold keeps it.
   */
  expires: string;
}

/** `stor replication status --json`: one per task. */
export interface ReplicationStatus {
  id: number;
  name: string;
  enabled: boolean;
  /** The last run: PENDING, RUNNING, FINISHED, ERROR, HOLD (zettarepl's `state.state`). */
  state: string;
  /** When the last run ended (ISO 8601), null before the first. */
  last_run: string | null;
  error: string | null;
  datasets: ReplicationSide[];
  retention_next: RetentionNext[];
}

type Snap = { id: string; dataset: string; snapshot_name: string; createtxg: number | string };

const snapshotsOf = (t: Pick<Transport, 'call'>, dataset: string, recursive: boolean) =>
  queryItems(
    t,
    'pool.snapshot.query',
    ['id', 'dataset', 'snapshot_name', 'createtxg'],
    datasetFilter(dataset, recursive),
    {
      select: ['id', 'dataset', 'snapshot_name', 'createtxg'],
    },
  ) as Promise<Snap[]>;

/**
 * Which snapshot names the task copies: those its bound tasks' naming schemas, its
 * also_include_naming_schema (PUSH) or naming_schema (PULL) parse, or its name_regex matches
 * (zettarepl replication/task/snapshot_owner.py).
 */
function eligibility(r: Replication): (name: string) => boolean {
  if (r.name_regex) return nameRegexTest(r.name_regex);
  const schemas = [
    ...r.periodic_snapshot_tasks.map((t) => t.naming_schema),
    ...r.also_include_naming_schema,
    ...r.naming_schema,
  ];
  return (name) => schemas.some((s) => tryParseSnapshotName(name, s) !== null);
}

const newest = (snaps: readonly Snap[]): Snap | undefined =>
  [...snaps].sort((a, b) => Number(b.createtxg) - Number(a.createtxg))[0];

/** Of a bound task's snapshots but each dataset's newest (zettarepl keeps it), the one that expires first. */
async function retentionNextOf(
  t: Pick<Transport, 'call'>,
  task: Replication['periodic_snapshot_tasks'][number],
): Promise<RetentionNext | null> {
  const snaps = (await snapshotsOf(t, task.dataset, task.recursive)).flatMap((s) => {
    const p = tryParseSnapshotName(s.snapshot_name, task.naming_schema)?.time;
    return p ? [{ ...s, at: Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) }] : [];
  });
  const newestAt = new Map<string, number>();
  for (const s of snaps) newestAt.set(s.dataset, Math.max(newestAt.get(s.dataset) ?? -Infinity, s.at));
  const first = snaps
    .filter((s) => s.at !== newestAt.get(s.dataset))
    .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id))[0];
  if (!first) return null;
  const expires = first.at + lifetimeMs({ value: task.lifetime_value, unit: task.lifetime_unit });
  return { task: task.id, snapshot: first.id, expires: new Date(expires).toISOString().slice(0, 19) };
}

async function statusOf(t: Pick<Transport, 'call'>, r: Replication): Promise<ReplicationStatus> {
  const eligible = eligibility(r);
  const datasets: ReplicationSide[] = [];
  const scope = { sourceDatasets: r.source_datasets, targetDataset: r.target_dataset, recursive: false, exclude: [] };
  // Over SSH one side is another appliance, which pool.snapshot.query here cannot see.
  const remote = r.transport === 'LOCAL' ? null : r.direction === 'PUSH' ? 'target' : 'source';
  const ownNewest = async (dataset: string) =>
    newest((await snapshotsOf(t, dataset, false)).filter((s) => eligible(s.snapshot_name)));
  for (const source of r.source_datasets) {
    const target = targetDatasetOf(scope, source);
    const src = remote === 'source' ? undefined : await ownNewest(source);
    const dst = remote === 'target' ? undefined : await ownNewest(target);
    datasets.push({
      source,
      target,
      source_newest: src?.id ?? null,
      target_newest: dst?.id ?? null,
      up_to_date: remote !== null ? null : src !== undefined && dst?.snapshot_name === src.snapshot_name,
      remote,
    });
  }
  const retention: RetentionNext[] = [];
  for (const task of r.periodic_snapshot_tasks) {
    const next = await retentionNextOf(t, task);
    if (next) retention.push(next);
  }
  const error = typeof r.state.error === 'string' && r.state.error !== '' ? r.state.error : null;
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    state: typeof r.state.state === 'string' ? r.state.state : '',
    last_run: runTimeOf(r),
    error,
    datasets,
    retention_next: retention,
  };
}

/**
 * `stor replication status [ID|NAME]`: per task, its last run, each source dataset's newest
 * snapshot it would copy beside the target's newest (pool.snapshot.query on both sides: LOCAL
 * targets, or a PULL's local target), and what its periodic snapshot tasks' retention removes
 * next. Read only; the expiry is computed here from the names and lifetimes, so approximate.
 */
export async function replicationStatus(
  ctx: CommandContext,
  ref: string | undefined,
): Promise<CommandResult<ReplicationStatus[]>> {
  const t = await ctx.transport();
  const tasks =
    ref === undefined
      ? ((await queryItems(t, 'replication.query', ['id', 'name'])) as Replication[])
      : [await findReplication(t, ref)];
  const data: ReplicationStatus[] = [];
  for (const r of tasks) data.push(await statusOf(t, r));
  if (data.some((s) => s.retention_next.length > 0))
    ctx.note(
      "stor: 'expires' is the appliance's wall clock, from each snapshot's name and its task's lifetime: retention removes it at the task's first run after then",
    );
  return tableResult(data, {
    columns: [
      { header: 'id', key: true },
      { header: 'name', key: true },
      { header: 'last run', overflow: 'wrap' },
      { header: 'source newest', overflow: 'wrap' },
      { header: 'target newest', overflow: 'wrap' },
      'up to date',
      { header: 'retention removes next', overflow: 'wrap' },
    ],
    rows: data.map((s) => [
      s.id,
      s.name,
      [runStateOf({ state: { state: s.state, error: s.error ?? undefined } }), s.last_run].filter(Boolean).join(' '),
      s.datasets.map((d) => d.source_newest ?? `${d.source}: ${d.remote === 'source' ? 'remote' : 'none'}`).join(', '),
      s.datasets.map((d) => d.target_newest ?? `${d.target}: ${d.remote === 'target' ? 'remote' : 'none'}`).join(', '),
      s.datasets.some((d) => d.up_to_date === null) ? '-' : s.datasets.every((d) => d.up_to_date),
      s.retention_next.map((n) => `${n.snapshot} (expires ${n.expires})`).join(', ') || '-',
    ]),
    empty: ref === undefined ? 'No replication tasks.' : `No replication task ${ref}.`,
  });
}

export const replicationStatusCommand = defineCommand({
  summary: 'how replication tasks stand: last run, newest snapshot on each side, what retention removes next',
  effect: 'read',
  calls: ['replication.query', 'pool.snapshot.query'],
  fanOut: 'read',
  args: { task: arg.optional('one replication task: its id or name (all when not given)', 'replication') },
  examples: ['stor replication status', 'stor replication status backup', 'stor replication status --json'],
  run: (ctx, { task }) => replicationStatus(ctx, task),
});
