import { queryItems } from '../../core/contract/client.js';
import type { ReplicationEntry } from '../../core/contract/replication.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import { arg } from '../framework/declare.js';
import { cronLine, lifetimeText } from '../shared/schedule.js';

/** A replication task as replication.query answers it (either release's; 26.0 orders the bound tasks' keys id first). */
export type Replication = ReplicationEntry;

export const replicationArg = {
  task: arg.required('the replication task: its id or its name (`stor replication list`)', 'replication'),
};

/**
 * The task an id or name names, read before any change: an unknown one is NOT_FOUND. Digits are an
 * id first, then a name (names are any text: MW/api/v25_10_1/replication.py:42 NonEmptyString).
 */
export async function findReplication(t: Pick<Transport, 'call'>, ref: string): Promise<Replication> {
  const fields = ['id', 'name'] as const;
  if (/^\d+$/.test(ref)) {
    const [byId] = await queryItems(t, 'replication.query', fields, [['id', '=', Number(ref)]]);
    if (byId) return byId as Replication;
  }
  const [byName] = await queryItems(t, 'replication.query', fields, [['name', '=', ref]]);
  if (!byName)
    throw new StorError(E.NOT_FOUND, `no replication task ${JSON.stringify(ref)}`, {
      hint: '`stor replication list` shows them',
    });
  return byName as Replication;
}

/** The task's last run as zettarepl reports it (`state.state`: PENDING, RUNNING, FINISHED, ERROR, HOLD), and its error. */
export function runStateOf(r: Pick<Replication, 'state'>): string {
  const word = typeof r.state.state === 'string' ? r.state.state : '';
  return typeof r.state.error === 'string' && r.state.error !== '' ? `${word}: ${r.state.error}` : word;
}

/** When the last run ended, ISO 8601, from `state.datetime` (an EJSON date, `{$date: ms}`); null when none. */
export function runTimeOf(r: Pick<Replication, 'state'>): string | null {
  const d = r.state.datetime as { $date?: unknown } | number | undefined;
  const ms = typeof d === 'number' ? d : typeof d?.$date === 'number' ? d.$date : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** `tank/a, tank/b → backup/a`. */
export const routeOf = (r: Pick<Replication, 'source_datasets' | 'target_dataset'>): string =>
  `${r.source_datasets.join(', ')} → ${r.target_dataset}`;

/** When it runs on its own: its schedule, after its periodic snapshot tasks, or only when run. */
export function whenOf(
  r: Pick<Replication, 'auto' | 'schedule'> & { periodic_snapshot_tasks: readonly unknown[] },
): string {
  if (!r.auto) return 'manual';
  if (r.schedule) return cronLine(r.schedule);
  return r.periodic_snapshot_tasks.length > 0 ? 'after its snapshot tasks' : 'auto';
}

/** What the target keeps: the source's (SOURCE), a lifetime of its own (CUSTOM), everything (NONE). */
export function retentionOf(r: Pick<Replication, 'retention_policy' | 'lifetime_value' | 'lifetime_unit'>): string {
  if (r.retention_policy === 'CUSTOM' && r.lifetime_value !== null && r.lifetime_unit !== null)
    return `CUSTOM ${lifetimeText(r.lifetime_value, r.lifetime_unit)}`;
  return r.retention_policy;
}

/** The ids of the periodic snapshot tasks the replication is bound to. */
export const boundTaskIds = (r: Pick<Replication, 'periodic_snapshot_tasks'>): number[] =>
  r.periodic_snapshot_tasks.map((t) => t.id);
