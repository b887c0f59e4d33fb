/**
 * pool.snapshot.* on the emulator's files: a snapshot is a point-in-time copy of the dataset's
 * own files, and a rollback puts those bytes back (MW/plugins/pool_/snapshot.py,
 * MW/plugins/zfs_/snapshot.py, MW/plugins/zfs_/snapshot_actions.py).
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { tempDir } from '../../../helpers/temp-dir.js';

type Snap = {
  id: string;
  dataset: string;
  snapshot_name: string;
  createtxg: string;
  properties: Record<string, { parsed: unknown; value: string }>;
};

async function withDataset(name = 'tank/docs'): Promise<{ t: TestAppliance; dir: string }> {
  const t = await openTestAppliance();
  await t.call(t.admin, 'pool.dataset.create', { name, create_ancestors: true });
  return { t, dir: join(t.stateDir, 'mnt', name) };
}

const copiesOf = (t: TestAppliance) =>
  existsSync(join(t.stateDir, 'snapshots')) ? readdirSync(join(t.stateDir, 'snapshots')) : [];

describe('pool.snapshot: point-in-time copies of a dataset', () => {
  it('rollback restores the old bytes and mode, removes files created after the snapshot, and brings back deleted ones', async () => {
    const { t, dir } = await withDataset();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'report.txt'), 'version 1\n');
    writeFileSync(join(dir, 'sub/deep.bin'), Buffer.from([1, 2, 3]));
    chmodSync(join(dir, 'report.txt'), 0o640);
    const snap = await t.call<Snap>(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'before' });
    expect(snap).toMatchObject({
      id: 'tank/docs@before',
      name: 'tank/docs@before',
      dataset: 'tank/docs',
      snapshot_name: 'before',
      pool: 'tank',
      type: 'SNAPSHOT',
    });
    expect(snap.properties.referenced!.parsed).toBe('version 1\n'.length + 3);

    // An append changes the file in place: the snapshot must not see it (no hard links).
    appendFileSync(join(dir, 'report.txt'), 'version 2\n');
    chmodSync(join(dir, 'report.txt'), 0o600);
    writeFileSync(join(dir, 'new.txt'), 'created after');
    mkdirSync(join(dir, 'newdir/inner'), { recursive: true });
    writeFileSync(join(dir, 'sub/deep.bin'), 'replaced');
    writeFileSync(join(dir, 'sub2'), 'a file where nothing was');

    expect(await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@before')).toBeNull();
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('version 1\n');
    expect(statSync(join(dir, 'report.txt')).mode & 0o777).toBe(0o640);
    expect([...readFileSync(join(dir, 'sub/deep.bin'))]).toEqual([1, 2, 3]);
    expect(readdirSync(dir).sort()).toEqual(['report.txt', 'sub']);
    // The snapshot survives its rollback and can be rolled back to again.
    writeFileSync(join(dir, 'report.txt'), 'oops');
    await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@before');
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('version 1\n');
  });

  it('a child dataset is not part of its parent snapshot and a parent rollback leaves it alone', async () => {
    const { t, dir } = await withDataset('tank/docs/child');
    const parent = join(t.stateDir, 'mnt/tank/docs');
    writeFileSync(join(parent, 'top.txt'), 'parent');
    writeFileSync(join(dir, 'kid.txt'), 'child v1');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 's' });
    writeFileSync(join(dir, 'kid.txt'), 'child v2');
    writeFileSync(join(parent, 'top.txt'), 'parent v2');
    await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@s');
    expect(readFileSync(join(parent, 'top.txt'), 'utf8')).toBe('parent');
    expect(readFileSync(join(dir, 'kid.txt'), 'utf8')).toBe('child v2');
  });

  it('a symlink planted after the snapshot is removed, not followed', async () => {
    const { t, dir } = await withDataset();
    writeFileSync(join(dir, 'a.txt'), 'mine');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 's' });
    const outside = tempDir('stor-canary-');
    writeFileSync(join(outside, 'victim.txt'), 'precious');
    // a.txt becomes a link out of the pool: the rollback must replace the link, not write through it.
    unlinkSync(join(dir, 'a.txt'));
    symlinkSync(join(outside, 'victim.txt'), join(dir, 'a.txt'));
    await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@s');
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('precious');
    expect(lstatSync(join(dir, 'a.txt')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('mine');
  });

  it('rollback past later snapshots needs recursive, which destroys them and their copies, as zfs rollback -r does', async () => {
    const { t, dir } = await withDataset();
    writeFileSync(join(dir, 'f'), '1');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'one' });
    writeFileSync(join(dir, 'f'), '2');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'two' });
    writeFileSync(join(dir, 'f'), '3');
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'three' });
    expect(copiesOf(t)).toHaveLength(3);

    const refused = await t.callError(t.admin, 'pool.snapshot.rollback', 'tank/docs@one');
    expect(refused.reason).toBe(
      "[EFAULT] Failed to rollback snapshot: cannot rollback to 'tank/docs@one': more recent snapshots or bookmarks exist\n" +
        "use '-r' to force deletion of the following snapshots and bookmarks:\ntank/docs@two\ntank/docs@three",
    );
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('3');
    // The latest one needs no -r.
    writeFileSync(join(dir, 'f'), '4');
    await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@three');
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('3');

    await t.call(t.admin, 'pool.snapshot.rollback', 'tank/docs@one', { recursive: true });
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('1');
    expect((await t.call<Snap[]>(t.admin, 'pool.snapshot.query')).map((s) => s.id)).toEqual(['tank/docs@one']);
    expect(copiesOf(t)).toHaveLength(1);
  });

  it('query filters by dataset; delete removes the row and the copy; names as ZFS writes them', async () => {
    const { t } = await withDataset();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/other' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'a' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'b' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/other', name: 'a' });
    const docs = await t.call<Snap[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', 'tank/docs']]);
    expect(docs.map((s) => s.id)).toEqual(['tank/docs@a', 'tank/docs@b']);
    expect(Number(docs[1]!.createtxg)).toBeGreaterThan(Number(docs[0]!.createtxg));
    expect(await t.call(t.admin, 'pool.snapshot.query', [['snapshot_name', '=', 'a']], { count: true })).toBe(2);

    expect(await t.call(t.admin, 'pool.snapshot.delete', 'tank/docs@a')).toBe(true);
    expect((await t.call<Snap[]>(t.admin, 'pool.snapshot.query')).map((s) => s.id)).toEqual([
      'tank/docs@b',
      'tank/other@a',
    ]);
    expect(copiesOf(t)).toHaveLength(2);
    expect((await t.callError(t.admin, 'pool.snapshot.delete', 'tank/docs@a')).reason).toBe(
      '[ENOENT] None: Snapshot tank/docs@a not found',
    );
  });

  it('recursive create and delete cover the child datasets; the copies survive a restart', async () => {
    const { t, dir } = await withDataset('tank/docs/child');
    writeFileSync(join(dir, 'kid.txt'), 'v1');
    const made = await t.call<Snap>(t.admin, 'pool.snapshot.create', {
      dataset: 'tank/docs',
      name: 'all',
      recursive: true,
    });
    expect(made.id).toBe('tank/docs@all');
    expect((await t.call<Snap[]>(t.admin, 'pool.snapshot.query')).map((s) => s.id)).toEqual([
      'tank/docs@all',
      'tank/docs/child@all',
    ]);

    const again = await t.reopen();
    writeFileSync(join(dir, 'kid.txt'), 'v2');
    await again.call(again.admin, 'pool.snapshot.rollback', 'tank/docs@all', { recursive_rollback: true });
    expect(readFileSync(join(dir, 'kid.txt'), 'utf8')).toBe('v1');
    await again.call(again.admin, 'pool.snapshot.delete', 'tank/docs@all', { recursive: true });
    expect(await again.call(again.admin, 'pool.snapshot.query', [], { count: true })).toBe(0);
    expect(copiesOf(again)).toEqual([]);
  });

  it('pool.dataset.delete refuses a dataset with snapshots unless recursive, which destroys them and their copies (zfs destroy)', async () => {
    const { t } = await withDataset();
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'keep' });
    const refused = await t.callError(t.admin, 'pool.dataset.delete', 'tank/docs');
    expect(refused.reason).toBe(
      "[EFAULT] Failed to delete dataset: cannot destroy 'tank/docs': filesystem has children\nuse '-r' to destroy the following datasets:\ntank/docs@keep",
    );
    expect(await t.call(t.admin, 'pool.dataset.delete', 'tank/docs', { recursive: true })).toBe(true);
    expect(await t.call(t.admin, 'pool.snapshot.query', [], { count: true })).toBe(0);
    expect(copiesOf(t)).toEqual([]);
  });
});

describe('pool.snapshot: copies left by a killed process', () => {
  it('the next start removes a half copy whose process died, keeps one whose snapshot was saved, and forgets both entries', async () => {
    const { t, dir } = await withDataset();
    writeFileSync(join(dir, 'a.txt'), 'kept');
    const saved = await t.call<Snap>(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'saved' });
    const [savedCopy] = copiesOf(t);
    // As a process killed mid-copy leaves the state: its entry and a half copy with no row; and one
    // killed between saving the row and forgetting the entry.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const half = randomUUID();
    mkdirSync(join(t.stateDir, 'snapshots', half, 'sub'), { recursive: true });
    writeFileSync(join(t.stateDir, 'snapshots', half, 'sub/partial.bin'), 'half');
    const inFlight = join(t.stateDir, 'snapshots-in-flight');
    expect(readdirSync(inFlight)).toEqual([]);
    writeFileSync(join(inFlight, `${dead}-${half}`), '');
    writeFileSync(join(inFlight, `${dead}-${savedCopy}`), '');
    // A live process's copy (this one's) is still being written: not touched.
    const writing = randomUUID();
    mkdirSync(join(t.stateDir, 'snapshots', writing));
    writeFileSync(join(inFlight, `${process.pid}-${writing}`), '');

    const again = await t.reopen();
    expect(copiesOf(again).sort()).toEqual([savedCopy, writing].sort());
    expect(readdirSync(inFlight)).toEqual([`${process.pid}-${writing}`]);
    const listed = await again.call<Snap[]>(again.admin, 'pool.snapshot.query', [['id', '=', saved.id]]);
    expect(listed).toHaveLength(1);
  });
});
