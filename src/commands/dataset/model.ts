import { datasetProperty, type PoolDatasetEntry } from '../../core/contract/pool-dataset.js';
import { malformedAnswer, queryItems } from '../../core/contract/client.js';
import type { Transport } from '../../core/transport/transport.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';

/** A dataset's comment: 25.10.x keeps it in `user_properties.comments`, present only when set. */
export function commentOf(d: PoolDatasetEntry): string | null {
  // user_properties is a plain dict in the 25.10.1 model; its items have the property shape.
  const comment = datasetProperty().safeParse(d.user_properties?.comments);
  return (comment.success && comment.data.value) || null;
}

/** A space property's bytes (`parsed` is an int for used/available), or null when absent. */
export function bytesOf(p: PoolDatasetEntry['used']): number | null {
  return typeof p?.parsed === 'number' ? p.parsed : null;
}

/** Accepts `tank/a/b` or its mountpoint `/mnt/tank/a/b`. */
export function datasetId(ref: string): string {
  const id = ref.startsWith('/mnt/') ? ref.slice('/mnt/'.length) : ref;
  const trimmed = id.replace(/\/+$/, '');
  if (trimmed === '' || trimmed.startsWith('/')) {
    throw new StorError(E.BAD_DATASET, `not a dataset name or mountpoint: ${JSON.stringify(ref)}`, {
      hint: 'use e.g. tank/projects or /mnt/tank/projects',
    });
  }
  return trimmed;
}

/**
 * `parsed` is Any in the model, but used/available are ints on every 25.10.1 dataset: another type
 * means the target is not what it claims, which is said as for any malformed answer.
 */
export function checkSpaceProperties(method: string, entries: readonly PoolDatasetEntry[]): void {
  entries.forEach((e, i) => {
    for (const name of ['used', 'available'] as const) {
      const parsed = e[name]?.parsed;
      if (parsed !== undefined && parsed !== null && typeof parsed !== 'number') {
        throw malformedAnswer(method, entries, { code: 'invalid_type', expected: 'number', path: [i, name, 'parsed'] });
      }
    }
  });
}

/**
 * "No such dataset", said as stor says it of anything missing (NOT_FOUND, exit 1). The hint lists
 * the pool's datasets when the pool is there, else every dataset: `stor dataset list nosuch` would
 * be the command that just failed.
 */
export async function noDataset(t: Pick<Transport, 'call'>, id: string): Promise<StorError> {
  const pool = id.split('/')[0]!;
  const poolThere =
    pool !== id && (await queryItems(t, 'pool.dataset.query', ['id'], [['id', '=', pool]]).catch(() => [])).length > 0;
  return new StorError(E.NOT_FOUND, `no dataset ${id}`, {
    hint: `\`stor dataset list${poolThere ? ` ${pool}` : ''}\` shows them`,
  });
}

/**
 * Dataset `id`, read before any change: a missing one is NOT_FOUND, never learnt from the change
 * itself (25.10.1's pool.dataset.delete would answer EINVAL "PoolDataset … does not exist").
 */
export async function findDataset(t: Pick<Transport, 'call'>, id: string): Promise<PoolDatasetEntry> {
  const [found] = await queryItems(t, 'pool.dataset.query', ['id'], [['id', '=', id]]);
  if (!found) throw await noDataset(t, id);
  return found;
}

/**
 * Dataset `id` with its properties, read as 25.10.1's own update reads it (`retrieve_children`
 * off, MW/plugins/pool_/dataset.py:687-689) unless `extra` asks for more; missing is NOT_FOUND.
 */
export async function readDataset(
  t: Pick<Transport, 'call'>,
  id: string,
  extra: Record<string, unknown> = { retrieve_children: false },
): Promise<PoolDatasetEntry & { id: string }> {
  const [found] = await queryItems(t, 'pool.dataset.query', ['id'], [['id', '=', id]], { extra });
  if (!found) throw await noDataset(t, id);
  return found;
}
