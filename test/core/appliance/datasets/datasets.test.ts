import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { openDatabase } from '../../../../src/core/store/sqlite.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestAppliance } from '../../../helpers/appliance.js';
import { tempDir } from '../../../helpers/temp-dir.js';

describe('pool.dataset through the dispatcher', () => {
  it('reports used bytes per dataset, children included, and validates names', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b', create_ancestors: true });
    writeFileSync(join(t.stateDir, 'mnt/tank/a/one.bin'), Buffer.alloc(1000));
    writeFileSync(join(t.stateDir, 'mnt/tank/a/b/two.bin'), Buffer.alloc(300));
    const a = await t.call<{
      used: { parsed: number };
      usedbychildren: { parsed: number };
      usedbydataset: { parsed: number };
      children: { id: string }[];
    }>(t.admin, 'pool.dataset.get_instance', 'tank/a');
    expect([a.used.parsed, a.usedbydataset.parsed, a.usedbychildren.parsed]).toEqual([1300, 1000, 300]);
    expect(a.children.map((c) => c.id)).toEqual(['tank/a/b']);
    expect((await t.callError(t.admin, 'pool.dataset.create', { name: 'tank' })).triples).toEqual([
      ['pool_dataset_create.name', 'You need a full name, e.g. pool/newdataset', 22],
    ]);
    expect((await t.callError(t.admin, 'pool.dataset.create', { name: 'tank/x/y' })).triples).toEqual([
      ['pool_dataset_create.name', 'Parent dataset (tank/x) does not exist.', 22],
    ]);
    expect((await t.callError(t.admin, 'pool.dataset.get_instance', 'tank/nope')).reason).toBe(
      '[ENOENT] None: PoolDataset tank/nope does not exist',
    );
  });

  it('a create under a quota counts the files of the whole quota tree; one under none reads no other tree, and agrees with the query', async () => {
    const t = await openTestAppliance();
    const MiB = 1024 * 1024;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/q', quota: 1024 * MiB });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/q/a' });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/free' });
    writeFileSync(join(t.stateDir, 'mnt/tank/q/one.bin'), Buffer.alloc(MiB));
    writeFileSync(join(t.stateDir, 'mnt/tank/q/a/two.bin'), Buffer.alloc(2 * MiB));
    type Entry = { id: string; available: { parsed: number }; used: { parsed: number } };
    const underQuota = await t.call<Entry>(t.admin, 'pool.dataset.create', { name: 'tank/q/b' });
    expect(underQuota.available.parsed).toBe(1021 * MiB);
    const free = await t.call<Entry>(t.admin, 'pool.dataset.create', { name: 'tank/free/c' });
    const listed = await t.call<Entry[]>(t.admin, 'pool.dataset.query', [['id', 'in', ['tank/q/b', 'tank/free/c']]], {
      order_by: ['id'],
    });
    expect(listed.map((e) => [e.id, e.used.parsed])).toEqual([
      ['tank/free/c', 0],
      ['tank/q/b', 0],
    ]);
    expect(listed[1]!.available.parsed).toBe(1021 * MiB);
    expect(free.available.parsed).not.toBe(1021 * MiB);
  });

  it('never deletes or creates through a symlink planted where a parent dataset was', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b', create_ancestors: true });
    const outside = tempDir('stor-canary-');
    mkdirSync(join(outside, 'b'));
    writeFileSync(join(outside, 'b/keep.txt'), 'precious');
    renameSync(join(t.stateDir, 'mnt/tank/a'), join(t.stateDir, 'moved-a'));
    symlinkSync(outside, join(t.stateDir, 'mnt/tank/a'));

    const del = await t.callError(t.admin, 'pool.dataset.delete', 'tank/a/b');
    expect(del.reason).toContain('symlink that leaves the pool');
    expect(existsSync(join(outside, 'b/keep.txt'))).toBe(true);
    const create = await t.callError(t.admin, 'pool.dataset.create', { name: 'tank/a/c' });
    expect(create.reason).toContain('symlink that leaves the pool');
    expect(existsSync(join(outside, 'c'))).toBe(false);
    // The rows are untouched by the refused delete. (Not `count`: 25.10.1 counts every dataset
    // whatever the filters, MW/plugins/pool_/dataset_query_utils.py:955-956, 1082-1083.)
    expect(
      (await t.call(t.admin, 'pool.dataset.query', [['id', '=', 'tank/a/b']], { select: ['id'] })) as unknown[],
    ).toEqual([{ id: 'tank/a/b' }]);
  });
});

type Entry = Record<string, unknown> & { id: string; user_properties: Record<string, Record<string, unknown>> };

describe('dataset entries in the 25.10.1 shape', () => {
  it('have no top-level comments; user_properties.comments only when set (MW/plugins/pool_/dataset_query_utils.py normalize_user_properties, build_info)', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/plain' });
    const created = await t.call<Entry>(t.admin, 'pool.dataset.create', {
      name: 'tank/noted',
      comments: 'team a',
      user_properties: [{ key: 'custom:owner', value: 'ops' }],
    });
    const all = await t.call<Entry[]>(t.admin, 'pool.dataset.query');
    for (const e of [created, ...all]) {
      expect(e).not.toHaveProperty('comments');
      expect(e).not.toHaveProperty('managedby');
    }
    const byId = new Map(all.map((e) => [e.id, e]));
    expect(byId.get('tank')!.user_properties).toEqual({});
    expect(byId.get('tank/plain')!.user_properties).toEqual({});
    const comment = { parsed: 'team a', rawvalue: 'team a', value: 'team a', source: 'LOCAL', source_info: null };
    expect(created.user_properties).toEqual({
      comments: comment,
      'custom:owner': { ...comment, parsed: 'ops', rawvalue: 'ops', value: 'ops' },
    });
    expect(byId.get('tank/noted')!.user_properties).toEqual(created.user_properties);
    // The other fields a 25.10.1 filesystem entry carries (MW/api/v25_10_1/pool_dataset.py PoolDatasetEntry).
    for (const key of [
      'id',
      'type',
      'name',
      'pool',
      'encrypted',
      'encryption_root',
      'key_loaded',
      'locked',
      'children',
      'mountpoint',
      'compressratio',
      'xattr',
      'usedbysnapshots',
      'creation',
    ]) {
      expect(created).toHaveProperty(key);
    }
  });

  it('takes comments as create/update take them in 25.10.1: a field, INHERIT unset on create, written as given on update (MW/plugins/pool_/dataset.py:599, :726)', async () => {
    const t = await openTestAppliance();
    const inherit = await t.call<Entry>(t.admin, 'pool.dataset.create', { name: 'tank/a', comments: 'INHERIT' });
    expect(inherit.user_properties).toEqual({});
    const updated = await t.call<Entry>(t.admin, 'pool.dataset.update', 'tank/a', { comments: 'now noted' });
    expect(updated.user_properties.comments!.value).toBe('now noted');
    const removed = await t.call<Entry>(t.admin, 'pool.dataset.update', 'tank/a', {
      user_properties_update: [{ key: 'org.freenas:description', remove: true }],
    });
    expect(removed.user_properties).toEqual({});
    const neither = await t.callError(t.admin, 'pool.dataset.update', 'tank/a', {
      user_properties_update: [{ key: 'custom:x' }],
    });
    expect(neither.triples).toEqual([
      ['pool_dataset_update.user_properties_update.0.value', 'Either "value" or "remove" must be specified', 22],
    ]);
    const again = await t.callError(t.admin, 'pool.dataset.create', { name: 'tank/a' });
    expect(again.triples).toEqual([['pool_dataset_create.name', 'Path /mnt/tank/a already exists', 22]]);
  });

  it('moves comments stored by an older stor into user_properties when the state is opened', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/old' });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/blank' });
    t.appliance.close();
    // The state as schema version 3 left it: comments among the ZFS properties.
    const db = openDatabase(join(t.stateDir, 'stor.db'));
    db.prepare('UPDATE datasets SET properties = ? WHERE id = ?').run(
      JSON.stringify({ comments: 'legacy note', compression: 'ZSTD' }),
      'tank/old',
    );
    db.prepare('UPDATE datasets SET properties = ? WHERE id = ?').run(JSON.stringify({ comments: '' }), 'tank/blank');
    db.pragma('user_version = 3');
    db.close();
    const reopened = await openTestAppliance(undefined, t.stateDir);
    const old = await reopened.call<Entry>(reopened.admin, 'pool.dataset.get_instance', 'tank/old');
    expect(old).not.toHaveProperty('comments');
    expect(old.user_properties.comments!.value).toBe('legacy note');
    expect((old.compression as { value: string }).value).toBe('ZSTD');
    const blank = await reopened.call<Entry>(reopened.admin, 'pool.dataset.get_instance', 'tank/blank');
    expect(blank.user_properties).toEqual({});
  });
});
