/**
 * What a local replication part sends, planned without a store (zettarepl/replication/run.py and
 * snapshots_to_send.py at release/25.10.1): the worlds are written out by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  planLocalReplication,
  ReplicationError,
  type ReplicationWorld,
} from '../../../../src/core/appliance/replication/plan.js';
import { replicationSpec } from '../../../helpers/replication-spec.js';
import { parseTaskSnapshotName } from '../../../../src/core/appliance/snapshot-tasks/appliance-clock.js';

const spec = replicationSpec;

/** A world of filesystems, each with its snapshots in createtxg order. */
function world(snapshots: Record<string, string[]>, listing: Record<string, string[]> = {}): ReplicationWorld {
  let txg = 0;
  return {
    datasets: Object.keys(snapshots).map((id) => ({ id, type: 'FILESYSTEM' as const, readonly: false })),
    snapshots: Object.entries(snapshots).flatMap(([dataset, names]) =>
      names.map((name) => ({ dataset, name, txg: ++txg })),
    ),
    listing: (id) => listing[id] ?? [],
    parse: parseTaskSnapshotName,
  };
}

describe('planning a local replication', () => {
  it('with a name regex: the base is the newest source snapshot the target has, whatever its name, and only matching ones go (snapshots_to_send.py:31-57)', () => {
    const [part] = planLocalReplication(
      spec({ namingSchemas: [], nameRegex: 'keep-.*' }),
      world({ 'tank/src': ['keep-1', 'other', 'keep-2', 'skip', 'keep-3'], 'tank/dst': ['keep-1', 'other'] }),
    );
    expect(part!.steps[0]).toMatchObject({
      incrementalBase: 'other',
      sends: [
        { snapshot: 'keep-2', receives: ['keep-2'] },
        { snapshot: 'keep-3', receives: ['keep-3'] },
      ],
    });
  });

  it('with a name regex all of whose snapshots match: one -I stream after the first (snapshots_to_send.py:47-55)', () => {
    const [part] = planLocalReplication(
      spec({ namingSchemas: [], nameRegex: 'keep-.*' }),
      world({ 'tank/src': ['keep-1', 'keep-2', 'keep-3'] }),
    );
    expect(part!.steps[0]!.sends).toEqual([
      { snapshot: 'keep-1', receives: ['keep-1'] },
      { snapshot: 'keep-3', receives: ['keep-2', 'keep-3'] },
    ]);
  });

  it('orders by the time names hold, not by when they were made (snapshots_to_send.py:82-84)', () => {
    const [part] = planLocalReplication(
      spec({ namingSchemas: ['late-%Y%m%d%H%M', 'auto-%Y-%m-%d_%H-%M'] }),
      world({ 'tank/src': ['late-202401051100', 'auto-2024-01-05_09-00'] }),
    );
    expect(part!.steps[0]!.sends.map((s) => s.snapshot)).toEqual(['auto-2024-01-05_09-00', 'late-202401051100']);
  });

  it('a recursive part skips the children of a source dataset that has no snapshots (run.py:649-650, 580-587)', () => {
    const [part] = planLocalReplication(
      spec({ recursive: true }),
      world({
        'tank/src': ['auto-2024-01-05_09-00'],
        'tank/src/empty': [],
        'tank/src/empty/x': ['auto-2024-01-05_09-00'],
      }),
    );
    expect(part!.steps.map((s) => s.target)).toEqual(['tank/dst']);
  });

  it('a missing target below a missing parent: the parent is made first (run.py:654-658)', () => {
    const [part] = planLocalReplication(
      spec({ targetDataset: 'tank/backup/dst' }),
      world({ 'tank/src': ['auto-2024-01-05_09-00'] }),
    );
    expect(part!.createParent).toBe('tank/backup');
  });

  it('a target of another type is refused in zettarepl’s words (run.py:296-298)', () => {
    const w = world({ 'tank/src': ['auto-2024-01-05_09-00'] });
    const vol = { ...w, datasets: [...w.datasets, { id: 'tank/dst', type: 'VOLUME' as const, readonly: false }] };
    expect(() => planLocalReplication(spec(), vol)).toThrow(
      new ReplicationError("Source 'tank/src' is a filesystem, but target 'tank/dst' already exists and is a volume"),
    );
  });
});
