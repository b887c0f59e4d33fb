import { queryItems } from '../../core/contract/client.js';
import type { PoolSnapshotEntry } from '../../core/contract/pool-snapshot.js';
import type { Transport } from '../../core/transport/transport.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { datasetId } from '../dataset/model.js';

/** One snapshot in `stor snapshot list --json` and the other snapshot verbs' answers. */
export interface SnapshotSummary {
  /** DATASET@NAME, as ZFS writes it. */
  id: string;
  dataset: string;
  name: string;
  /** When it was taken (ZFS's `creation`): ISO 8601 (UTC); null when the appliance did not report it. */
  creation: string | null;
  /** Bytes the snapshot refers to; null when not reported. */
  referenced: number | null;
  /** ZFS's transaction group: later snapshots of a dataset have higher ones. */
  createtxg: number;
}

/** The fields of a pool.snapshot.query item the verbs read. */
export type SnapshotFields = Pick<PoolSnapshotEntry, 'id' | 'dataset' | 'snapshot_name' | 'properties' | 'createtxg'>;

/** Splits `tank/a@before`; a name without one `@` and text on both sides is a usage error. */
export function snapshotRef(ref: string): { id: string; dataset: string; name: string } {
  const at = ref.indexOf('@');
  const name = at < 0 ? '' : ref.slice(at + 1);
  if (at <= 0 || name === '' || name.includes('@')) {
    const dataset = at < 0 ? ref.replace(/^\/mnt\//, '').replace(/\/+$/, '') || 'tank/a' : 'tank/a';
    throw new StorError(
      E.BAD_SNAPSHOT,
      `not a snapshot name: ${JSON.stringify(ref)}; snapshots are named DATASET@NAME`,
      {
        hint: `e.g. ${dataset}@before-change`,
      },
    );
  }
  const dataset = datasetId(ref.slice(0, at));
  return { id: `${dataset}@${name}`, dataset, name };
}

function createdOf(s: SnapshotFields): string | null {
  // `creation.parsed` is an EJSON date ({$date: ms}); rawvalue holds the seconds as text.
  const parsed = s.properties.creation?.parsed as { $date?: unknown } | undefined;
  const ms = typeof parsed?.$date === 'number' ? parsed.$date : Number(s.properties.creation?.rawvalue) * 1000;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export function summaryOf(s: SnapshotFields): SnapshotSummary {
  const referenced = s.properties.referenced?.parsed;
  return {
    id: s.id,
    dataset: s.dataset,
    name: s.snapshot_name,
    creation: createdOf(s),
    referenced: typeof referenced === 'number' ? referenced : null,
    createtxg: Number(s.createtxg),
  };
}

/**
 * The query options that bring the properties `summaryOf` reads. 26.0 lists a snapshot's
 * properties only when `extra.properties` names them (MW/plugins/pool_/snapshot.py:215-223 at
 * TS-26.0.0-BETA.3; MW/plugins/zfs/property_management.py:226-228); 25.10.1 passes the names to
 * py-libzfs's `snapshots_serialized(props=…)` (MW/plugins/zfs_/snapshot.py:108-113), which lists those.
 */
export const SUMMARY_OPTIONS = { extra: { properties: ['creation', 'referenced'] } } as const;

/** The query filter for a dataset's snapshots, and its children's with `recursive`. */
export function datasetFilter(dataset: string, recursive: boolean): unknown[] {
  return recursive
    ? [
        [
          'OR',
          [
            ['dataset', '=', dataset],
            ['dataset', '^', `${dataset}/`],
          ],
        ],
      ]
    : [['dataset', '=', dataset]];
}

/**
 * Snapshot `id`, read before any change: a missing one is NOT_FOUND (25.10.1's delete and rollback
 * would answer EINVAL "PoolSnapshot … does not exist"), never learnt from the change itself.
 */
export async function findSnapshot(
  t: Pick<Transport, 'call'>,
  id: string,
): Promise<Pick<PoolSnapshotEntry, 'id' | 'createtxg'>> {
  const [found] = await queryItems(t, 'pool.snapshot.query', ['id', 'createtxg'], [['id', '=', id]]);
  if (!found)
    throw new StorError(E.NOT_FOUND, `no snapshot ${id}`, {
      hint: `\`stor snapshot list ${id.split('@')[0]}\` shows them`,
    });
  return found;
}
