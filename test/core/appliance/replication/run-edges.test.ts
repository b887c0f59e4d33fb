/**
 * The local replication engine at its edges: names ZFS allows, a target inside its source, a
 * target changed under a run, two runs into one target, many snapshots, and a source changing
 * while its snapshot is copied. zettarepl release/25.10.1 and ZFS's receive are what it follows.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ReplicationError,
  runLocalReplication,
  type LocalReplicationSpec,
} from '../../../../src/core/appliance/replication/run.js';
import { deleteDatasets, listDatasets } from '../../../../src/core/store/datasets.js';
import { deleteSnapshots, listSnapshots } from '../../../../src/core/store/snapshots.js';
import {
  la,
  replicationAppliance,
  replicationSpec as spec,
  snapAt,
  snapshotName,
} from '../../../helpers/replication-spec.js';
import type { TestAppliance } from '../../../helpers/appliance.js';

const [setup, snap, name] = [replicationAppliance, snapAt, snapshotName];
const names = (t: TestAppliance, dataset: string) =>
  listSnapshots(t.appliance.store.db)
    .filter((s) => s.dataset === dataset)
    .map((s) => s.id.slice(s.id.indexOf('@') + 1));
const datasetIds = (t: TestAppliance) =>
  listDatasets(t.appliance.store.db)
    .map((d) => d.id)
    .sort();
const file = (t: TestAppliance, path: string) => join(t.stateDir, 'mnt', path);
const run = (t: TestAppliance, s: LocalReplicationSpec, progress: (p: number, text: string) => void = () => {}) =>
  runLocalReplication(t.appliance, s, progress);
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return `${err instanceof ReplicationError ? 'ReplicationError' : 'other'}: ${(err as Error).message}`;
  }
}

/** Every snapshot of tank/dst gone, rows and copies' rows (what a zfs destroy leaves in the store). */
function dropTargetSnapshots(t: TestAppliance): void {
  const { store } = t.appliance;
  const gone = store.read(() => listSnapshots(store.db)).filter((x) => x.dataset === 'tank/dst');
  store.write(() =>
    deleteSnapshots(
      store.db,
      gone.map((x) => x.id),
    ),
  );
}

/** tank/dst holding 09:00; then a run of 10:00 and 11:00 with `change` done between its two sends: its outcome. */
async function runChangingTarget(t: TestAppliance, change: () => void): Promise<string> {
  await snap(t, 9);
  await run(t, spec());
  await snap(t, 10);
  await snap(t, 11);
  let sends = 0;
  return outcome(
    run(t, spec(), () => {
      if (sends++ === 1) change();
    }),
  );
}

describe('a local replication run at its edges', () => {
  it('a target inside a recursive source is listed once per run: the run ends, one level deeper each time (run.py:411, 443-458)', async () => {
    const t = await setup(['tank/src', 'tank/src/kid']);
    const s = spec({ recursive: true, targetDataset: 'tank/src/backup' });
    await snap(t, 9, 'tank/src', true);
    await run(t, s);
    expect(datasetIds(t)).toEqual(['tank', 'tank/src', 'tank/src/backup', 'tank/src/backup/kid', 'tank/src/kid']);
    await snap(t, 10, 'tank/src', true);
    await run(t, s);
    // zettarepl lists the source tree once, before sending: the target's own copy is one more source.
    expect(datasetIds(t)).toContain('tank/src/backup/backup');
    expect(datasetIds(t)).not.toContain('tank/src/backup/backup/backup');
  });

  it('a target below a volume fails in ZFS’s words and makes nothing, never a host path (dmu_recv_begin_check, libzfs check_parents)', async () => {
    const t = await setup();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/vol', type: 'VOLUME', volsize: 16 * 1024 * 1024 });
    await snap(t, 9);
    const before = datasetIds(t);
    // The target's parent is the volume: zfs recv's ZFS_ERR_WRONG_PARENT, libzfs "invalid parent dataset".
    expect(await outcome(run(t, spec({ targetDataset: 'tank/vol/dst' })))).toBe(
      'ReplicationError: cannot receive new filesystem stream: invalid parent dataset',
    );
    // A missing parent below the volume: `zfs create -p` (run.py:655-658) refuses it in check_parents.
    expect(await outcome(run(t, spec({ targetDataset: 'tank/vol/a/dst' })))).toBe(
      "ReplicationError: cannot create 'tank/vol/a': parent is not a filesystem",
    );
    expect(datasetIds(t)).toEqual(before);
  });

  it('a name regex is read as Python reads it: named groups and escaped punctuation (name_pattern.py:7-8)', async () => {
    const t = await setup();
    await snap(t, 9);
    const result = await run(t, spec({ namingSchemas: [], nameRegex: '(?P<kind>auto)\\-2024-.*' }));
    expect(result.received).toEqual([`tank/dst@${name(9)}`]);
  });

  it('reads a snapshot’s own files, not the source’s files as they are now', async () => {
    const t = await setup();
    writeFileSync(file(t, 'tank/src/a.txt'), 'at nine');
    await snap(t, 9);
    writeFileSync(file(t, 'tank/src/a.txt'), 'changed since');
    await run(t, spec());
    expect(readFileSync(file(t, 'tank/dst/a.txt'), 'utf8')).toBe('at nine');
  });

  it('an incremental receive into a target destroyed mid-run fails with ZFS’s words and makes nothing (libzfs zfs_receive_one)', async () => {
    const t = await setup();
    const err = await runChangingTarget(t, () => {
      // pool.dataset.delete of the target between two sends: its rows and its files go.
      dropTargetSnapshots(t);
      t.appliance.store.write(() => deleteDatasets(t.appliance.store.db, ['tank/dst']));
      rmSync(file(t, 'tank/dst'), { recursive: true });
    });
    expect(err).toBe("ReplicationError: cannot receive incremental stream: destination 'tank/dst' does not exist");
    expect(datasetIds(t)).not.toContain('tank/dst');
  });

  it('an incremental receive whose base left the target fails with ZFS’s words (libzfs zfs_receive_one, ENODEV)', async () => {
    const t = await setup();
    const err = await runChangingTarget(t, () => dropTargetSnapshots(t));
    expect(err).toBe(
      'ReplicationError: cannot receive incremental stream: most recent snapshot of tank/dst does not\nmatch incremental source',
    );
    expect(names(t, 'tank/dst')).toEqual([]);
  });

  it('two runs into one target at once: one sends, the other fails as a full receive onto snapshots fails (libzfs zfs_receive_one)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    const outcomes = await Promise.all([outcome(run(t, spec())), outcome(run(t, spec()))]);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.find((o) => o !== 'ok')).toBe(
      `ReplicationError: cannot receive new filesystem stream: destination has snapshots (eg. tank/dst@${name(9)})\nmust destroy them to overwrite it`,
    );
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10)]);
  });

  it('a receive’s -F destroys the target’s own later snapshots only: its child’s and a like-named sibling’s stay (zfscli/__init__.py:73-74)', async () => {
    const t = await setup();
    await snap(t, 9);
    await run(t, spec());
    for (const d of ['tank/dst/child', 'tank/dst2']) await t.call(t.admin, 'pool.dataset.create', { name: d });
    t.appliance.now = () => la(9, 30);
    for (const dataset of ['tank/dst', 'tank/dst/child', 'tank/dst2'])
      await t.call(t.admin, 'pool.snapshot.create', { dataset, name: 'later' });
    await snap(t, 10);
    await snap(t, 11);
    await run(t, spec());
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10), name(11)]);
    expect(names(t, 'tank/dst/child')).toEqual(['later']);
    expect(names(t, 'tank/dst2')).toEqual(['later']);
  });

  it('a full receive is refused for the target’s own snapshots only, not for a like-named sibling’s (libzfs zfs_receive_one)', async () => {
    const t = await setup(['tank/src', 'tank/dst2']);
    t.appliance.now = () => la(8);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst2', name: 'own' });
    await snap(t, 9);
    await snap(t, 10);
    expect((await run(t, spec())).received).toEqual([`tank/dst@${name(9)}`, `tank/dst@${name(10)}`]);
    expect(names(t, 'tank/dst2')).toEqual(['own']);
  });
});
