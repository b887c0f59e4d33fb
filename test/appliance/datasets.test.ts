import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestAppliance } from '../helpers/appliance.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('pool.dataset through the dispatcher', () => {
  it('reports used bytes per dataset, children included, and validates names', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b', create_ancestors: true });
    writeFileSync(join(t.stateDir, 'mnt/tank/a/one.bin'), Buffer.alloc(1000));
    writeFileSync(join(t.stateDir, 'mnt/tank/a/b/two.bin'), Buffer.alloc(300));
    const a = await t.call<{ used: { parsed: number }; usedbychildren: { parsed: number }; usedbydataset: { parsed: number }; children: { id: string }[] }>(
      t.admin,
      'pool.dataset.get_instance',
      'tank/a',
    );
    expect([a.used.parsed, a.usedbydataset.parsed, a.usedbychildren.parsed]).toEqual([1300, 1000, 300]);
    expect(a.children.map((c) => c.id)).toEqual(['tank/a/b']);
    expect((await t.callError(t.admin, 'pool.dataset.create', { name: 'tank' })).triples).toEqual([
      ['pool_dataset_create.name', 'You need a full name, e.g. pool/newdataset', 22],
    ]);
    expect((await t.callError(t.admin, 'pool.dataset.create', { name: 'tank/x/y' })).triples).toEqual([
      ['pool_dataset_create.name', 'Parent dataset (tank/x) does not exist.', 22],
    ]);
    expect((await t.callError(t.admin, 'pool.dataset.get_instance', 'tank/nope')).reason).toBe('[ENOENT] None: PoolDataset tank/nope does not exist');
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
    // The rows are untouched by the refused delete.
    expect(await t.call(t.admin, 'pool.dataset.query', [['id', '=', 'tank/a/b']], { count: true })).toBe(1);
  });
});
