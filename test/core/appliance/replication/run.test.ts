/**
 * The emulator's local replication engine on a real appliance with temporary state: datasets and
 * snapshots made through the appliance's own methods, then `runLocalReplication` as the
 * replication.run handler calls it. What it follows is zettarepl at release/25.10.1
 * (zettarepl/replication/run.py, snapshots_to_send.py, dataset/data.py, pre_retention.py,
 * retention_policy.py) and the middleware's progress text (MW/plugins/zettarepl.py:466-500).
 * The appliance's zone is America/Los_Angeles: in January, UTC-8.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ReplicationError,
  runLocalReplication,
  type LocalReplicationSpec,
} from '../../../../src/core/appliance/replication/run.js';
import { listDatasets } from '../../../../src/core/store/datasets.js';
import { listSnapshots } from '../../../../src/core/store/snapshots.js';
import {
  failureOf,
  la,
  replicationAppliance,
  replicationSpec,
  snapAt,
  snapshotName,
} from '../../../helpers/replication-spec.js';
import type { TestAppliance } from '../../../helpers/appliance.js';

const [setup, snap, name] = [replicationAppliance, snapAt, snapshotName];

const spec = replicationSpec;

/** The snapshot names of a dataset, in createtxg order. */
const names = (t: TestAppliance, dataset: string) =>
  listSnapshots(t.appliance.store.db)
    .filter((s) => s.dataset === dataset)
    .map((s) => s.id.slice(s.id.indexOf('@') + 1));
const dataset = (t: TestAppliance, id: string) => listDatasets(t.appliance.store.db).find((d) => d.id === id);
const file = (t: TestAppliance, path: string) => join(t.stateDir, 'mnt', path);
const run = (t: TestAppliance, s: LocalReplicationSpec, progress: (p: number, text: string) => void = () => {}) =>
  runLocalReplication(t.appliance, s, progress);
const failure = (p: Promise<unknown>) => failureOf(p, ReplicationError);

describe('a local replication run', () => {
  it('copies every matching snapshot into a missing target, oldest first, with its creation time and files (run.py:654-658, snapshots_to_send.py:82-96)', async () => {
    const t = await setup();
    writeFileSync(file(t, 'tank/src/a.txt'), 'one');
    await snap(t, 9);
    writeFileSync(file(t, 'tank/src/a.txt'), 'two');
    await snap(t, 10);
    t.appliance.now = () => la(10, 30);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/src', name: 'manual' });
    const progress: [number, string][] = [];
    const result = await run(t, spec(), (p, text) => progress.push([p, text]));
    expect(result.received).toEqual([`tank/dst@${name(9)}`, `tank/dst@${name(10)}`]);
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10)]);
    const created = (id: string) => listSnapshots(t.appliance.store.db).find((s) => s.id === id)?.created_at;
    expect(created(`tank/dst@${name(9)}`)).toBe(la(9));
    expect(readFileSync(file(t, 'tank/dst/a.txt'), 'utf8')).toBe('two');
    // MW/plugins/zettarepl.py:473-478: the percent sent before each snapshot, and its text.
    expect(progress).toEqual([
      [0, `Sending 1 of 2: tank/src@${name(9)}`],
      [50, `Sending 2 of 2: tank/src@${name(10)}`],
    ]);
  });

  it('a second run sends only what the source has after the newest common snapshot (snapshots_to_send.py:60-96)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    await run(t, spec());
    await snap(t, 11);
    const result = await run(t, spec());
    expect(result.received).toEqual([`tank/dst@${name(11)}`]);
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10), name(11)]);
    // Nothing new: nothing sent, no error (run.py:640-652).
    expect((await run(t, spec())).received).toEqual([]);
  });

  it('a source without matching snapshots fails with zettarepl’s words (run.py:644-647)', async () => {
    const t = await setup();
    const err = await failure(run(t, spec()));
    expect(err.message).toBe("Dataset 'tank/src' does not have any matching snapshots to replicate");
  });

  it('a target with snapshots but none in common is refused, and replaced from scratch when allowed (run.py:596-609)', async () => {
    const t = await setup(['tank/src', 'tank/dst']);
    await snap(t, 9);
    t.appliance.now = () => la(8);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'other' });
    const err = await failure(run(t, spec()));
    expect(err.message).toBe("No incremental base on dataset 'tank/src' and replication from scratch is not allowed");
    expect(names(t, 'tank/dst')).toEqual(['other']);

    await run(t, spec({ allowFromScratch: true }));
    expect(names(t, 'tank/dst')).toEqual([name(9)]);
  });

  it('a target without snapshots but with files is refused unless from scratch is allowed (dataset/data.py:44-49)', async () => {
    const t = await setup(['tank/src', 'tank/dst']);
    await snap(t, 9);
    writeFileSync(file(t, 'tank/dst/keep.txt'), 'mine');
    const err = await failure(run(t, spec()));
    expect(err.message).toBe(
      "Target dataset 'tank/dst' does not have matching snapshots but has data (e.g. 'keep.txt') and " +
        'replication from scratch is not allowed. Refusing to overwrite existing data.',
    );
    expect(names(t, 'tank/dst')).toEqual([]);
  });

  it('target snapshots after the common one go with the receive, as `zfs recv -F` destroys them (zfscli/__init__.py:73-74)', async () => {
    const t = await setup();
    await snap(t, 9);
    await run(t, spec());
    t.appliance.now = () => la(9, 30);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'diverged' });
    await snap(t, 10);
    await run(t, spec());
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10)]);
  });

  it('a recursive run copies the tree but its excludes, and makes the target readonly (run.py:392-465, 837-856)', async () => {
    const t = await setup(['tank/src', 'tank/src/a', 'tank/src/skip', 'tank/src/a/b']);
    await snap(t, 9, 'tank/src', true);
    await run(t, spec({ recursive: true, exclude: ['tank/src/skip'], readonly: 'SET' }));
    expect(names(t, 'tank/dst')).toEqual([name(9)]);
    expect(names(t, 'tank/dst/a')).toEqual([name(9)]);
    expect(names(t, 'tank/dst/a/b')).toEqual([name(9)]);
    expect(dataset(t, 'tank/dst/skip')).toBeUndefined();
    expect(dataset(t, 'tank/dst')?.properties.readonly).toBe('ON');
    // Its children inherit it.
    expect(dataset(t, 'tank/dst/a')?.properties.readonly).toBeUndefined();
  });

  it('REQUIRE refuses a target that is not readonly (run.py:556-573)', async () => {
    const t = await setup(['tank/src', 'tank/dst']);
    await snap(t, 9);
    const err = await failure(run(t, spec({ readonly: 'REQUIRE' })));
    expect(err.message).toBe(
      "Target dataset 'tank/dst' exists and does not have readonly=on property, but replication task is set up " +
        'to require this property. Refusing to replicate.',
    );
  });

  it('SOURCE retention removes from the target what the source no longer has, but the newest (retention_policy.py:54-60)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    await run(t, spec({ retentionPolicy: 'SOURCE' }));
    await t.call(t.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    await snap(t, 11);
    await run(t, spec({ retentionPolicy: 'SOURCE' }));
    expect(names(t, 'tank/dst')).toEqual([name(10), name(11)]);
  });

  it('NONE keeps every target snapshot (retention_policy.py:90-95)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    await run(t, spec());
    await t.call(t.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    await run(t, spec());
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10)]);
  });

  it('CUSTOM removes target snapshots older than its lifetime at the appliance’s time (retention_policy.py:66-87)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    await snap(t, 11);
    t.appliance.now = () => la(12, 30);
    const result = await run(t, spec({ retentionPolicy: 'CUSTOM', lifetime: { value: 2, unit: 'HOUR' } }));
    // At 12:30 a 2-hour lifetime ends at 10:30: 09:00 and 10:00 go, 11:00 stays.
    expect(result.destroyed).toEqual([`tank/dst@${name(9)}`, `tank/dst@${name(10)}`]);
    expect(names(t, 'tank/dst')).toEqual([name(11)]);
  });

  it('a held target snapshot survives the retention that would destroy it (zettarepl/snapshot/destroy.py:53-61)', async () => {
    const t = await setup();
    await snap(t, 9);
    await snap(t, 10);
    await run(t, spec({ retentionPolicy: 'SOURCE' }));
    await t.call(t.admin, 'pool.snapshot.hold', `tank/dst@${name(9)}`);
    await t.call(t.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    await snap(t, 11);
    await run(t, spec({ retentionPolicy: 'SOURCE' }));
    expect(names(t, 'tank/dst')).toEqual([name(9), name(10), name(11)]);
  });

  it('a run stopped after its first snapshot keeps it, and the next run ends with the source’s snapshots (run.py:733-740)', async () => {
    const t = await setup();
    for (const hour of [9, 10, 11]) await snap(t, hour);
    let calls = 0;
    const stopped = run(t, spec(), () => {
      if (++calls === 2) throw new Error('killed');
    });
    await expect(stopped).rejects.toThrow('killed');
    expect(names(t, 'tank/dst')).toEqual([name(9)]);
    const result = await run(t, spec());
    expect(result.received).toEqual([`tank/dst@${name(10)}`, `tank/dst@${name(11)}`]);
    expect(names(t, 'tank/dst')).toEqual(names(t, 'tank/src'));
  });

  it('a held snapshot is never destroyed: not from scratch, not by the receive’s -F (run.py:603, zfscli/__init__.py:73-74)', async () => {
    const t = await setup(['tank/src', 'tank/dst']);
    await snap(t, 9);
    t.appliance.now = () => la(8);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'other' });
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/dst@other');
    const scratch = await failure(run(t, spec({ allowFromScratch: true })));
    expect(scratch.message).toBe('cannot destroy snapshot tank/dst@other: dataset is busy');
    expect(names(t, 'tank/dst')).toEqual(['other']);

    const u = await setup();
    await snap(u, 9);
    await run(u, spec());
    u.appliance.now = () => la(9, 30);
    await u.call(u.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'later' });
    await u.call(u.admin, 'pool.snapshot.hold', 'tank/dst@later');
    await snap(u, 10);
    const recv = await failure(run(u, spec()));
    expect(recv.message).toBe('cannot receive incremental stream: dataset is busy');
    expect(names(u, 'tank/dst')).toEqual([name(9), 'later']);
  });

  it('with a name regex, SOURCE retention removes any target name the source lacks (snapshot_owner.py:36-42, retention_policy.py:54-60)', async () => {
    const t = await setup();
    for (const n of ['keep-1', 'keep-2'])
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/src', name: n });
    const regex = spec({ namingSchemas: [], nameRegex: 'keep-.*', retentionPolicy: 'SOURCE' });
    await run(t, regex);
    expect(names(t, 'tank/dst')).toEqual(['keep-1', 'keep-2']);
    await t.call(t.admin, 'pool.snapshot.delete', 'tank/src@keep-1');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/src', name: 'keep-3' });
    await run(t, regex);
    expect(names(t, 'tank/dst')).toEqual(['keep-2', 'keep-3']);
  });

  it('a target made by a full receive is readonly at once, before the rest is sent (run.py:832-834)', async () => {
    const t = await setup();
    for (const hour of [9, 10]) await snap(t, hour);
    let calls = 0;
    await expect(
      run(t, spec({ readonly: 'SET' }), () => {
        if (++calls === 2) throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    expect(dataset(t, 'tank/dst')?.properties.readonly).toBe('ON');
  });

  it('several source datasets run one after the other, each below a target made for them, the count growing as each is planned (run.py:234-248, 654-658, 670)', async () => {
    const t = await setup(['tank/a', 'tank/b']);
    await snap(t, 9, 'tank/a');
    await snap(t, 9, 'tank/b');
    const progress: [number, string][] = [];
    await run(t, spec({ sourceDatasets: ['tank/b', 'tank/a'] }), (p, text) => progress.push([p, text]));
    expect(dataset(t, 'tank/dst')).toBeDefined();
    expect(names(t, 'tank/dst/a')).toEqual([name(9)]);
    expect(names(t, 'tank/dst/b')).toEqual([name(9)]);
    expect(progress).toEqual([
      [0, `Sending 1 of 1: tank/a@${name(9)}`],
      [50, `Sending 2 of 2: tank/b@${name(9)}`],
    ]);
  });
});
