import { queryItems } from '../../../core/contract/client.js';
import type { PoolSnapshotTaskEntry } from '../../../core/contract/pool-snapshottask.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import type { Transport } from '../../../core/transport/transport.js';
import { arg } from '../../framework/declare.js';

/** A periodic snapshot task as pool.snapshottask.query answers it (either release's order). */
export type SnapshotTask = PoolSnapshotTaskEntry;

/** The task's last run as zettarepl reports it (`state.state`: PENDING, RUNNING, FINISHED, ERROR). */
export function stateOf(task: Pick<SnapshotTask, 'state'>): string {
  const s = task.state as { state?: unknown; error?: unknown } | null | undefined;
  const word = typeof s?.state === 'string' ? s.state : '';
  return typeof s?.error === 'string' && s.error !== '' ? `${word}: ${s.error}` : word;
}

/** A task id: a whole number from 1. */
export function taskIdOf(raw: string): number {
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1)
    throw new StorError(E.USAGE, `a snapshot task id is a whole number from 1, not ${JSON.stringify(raw)}`, {
      hint: '`stor snapshot task list` shows the ids',
    });
  return Number(raw);
}

export const taskIdArg = { id: arg.required('the task id (`stor snapshot task list`)', 'snapshot-task') };

/**
 * Task `id`, read before any change: a missing one is NOT_FOUND. 25.10.1's delete of an unknown id
 * answers true without looking (MW/plugins/snapshot.py:247-267), so it is never learnt from the change.
 */
export async function findTask(t: Pick<Transport, 'call'>, id: number): Promise<SnapshotTask> {
  const [found] = await queryItems(t, 'pool.snapshottask.query', ['id', 'dataset'], [['id', '=', id]]);
  if (!found)
    throw new StorError(E.NOT_FOUND, `no snapshot task ${id}`, { hint: '`stor snapshot task list` shows them' });
  return found as SnapshotTask;
}

/** What pool.snapshottask.*_will_change_retention_for answers, as one list of DATASET@NAME. */
export const retentionList = (byDataset: Record<string, string[]>): string[] =>
  Object.entries(byDataset).flatMap(([dataset, names]) => names.map((n) => `${dataset}@${n}`));
