/**
 * 25.10.1's pool.snapshot.query `extra.properties`, `min_txg` and `max_txg`, which zfs.snapshot.query
 * hands to py-libzfs's snapshots_serialized (MW/plugins/zfs_/snapshot.py:59-60, 108-115 at
 * TS-25.10.1). py-libzfs (libzfs.pyx `_snapshots_snaplist_arg`, `__snapshot_details` at its
 * TS-25.10.1) lists the snapshot properties `prop_name in props` keeps, all of them when `props`
 * is empty or None, in its own order (not the order asked); user properties always; and no
 * `properties` at all when what is kept is only `name` and `createtxg` (`simple_handle`).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown> & { id: string; createtxg: string; properties?: Record<string, unknown> };

async function withSnapshots(): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'] });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'one', properties: { 'org:x': 'y' } });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'two' });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'three' });
  return t;
}

const query = (t: TestAppliance, options: object, filters: unknown[] = [['id', '=', 'tank/data@one']]) =>
  t.call<Entry[]>(t.admin, 'pool.snapshot.query', filters, options);

describe("pool.snapshot.query's extra on 25.10.1", () => {
  it('extra.properties keeps the snapshot properties it names, in py-libzfs order, with the user properties (libzfs.pyx _snapshots_snaplist_arg: `prop_name in props`)', async () => {
    const t = await withSnapshots();
    const [entry] = await query(t, { extra: { properties: ['referenced', 'creation', 'bogus'] } });
    expect(Object.keys(entry!.properties!)).toEqual(['org:x', 'creation', 'referenced']);
    // stor's own verbs ask for these two (commands/snapshot/model.ts SUMMARY_OPTIONS).
    expect(entry!.properties!.referenced).toMatchObject({ source: 'NONE', parsed: expect.any(Number) });
    // A dict's keys, as `in` reads a dict.
    const [byDict] = await query(t, { extra: { properties: { used: true } } });
    expect(Object.keys(byDict!.properties!)).toEqual(['org:x', 'used']);
    // A string is searched as text: `'used' in 'referenced,used'`.
    const [byText] = await query(t, { extra: { properties: 'referenced,used' } });
    expect(Object.keys(byText!.properties!)).toEqual(['org:x', 'used', 'referenced']);
  });

  it('an empty or null extra.properties lists every property (`props = props or []`, then all)', async () => {
    const t = await withSnapshots();
    const [all] = await query(t, {});
    for (const properties of [[], null, {}, '']) {
      const [entry] = await query(t, { extra: { properties } });
      expect(Object.keys(entry!.properties!)).toEqual(Object.keys(all!.properties!));
    }
  });

  it('only name/createtxg (or nothing ZFS knows) kept: no properties at all, user ones neither (__snapshot_details simple_handle)', async () => {
    const t = await withSnapshots();
    for (const properties of [['name'], ['createtxg', 'name'], ['bogus'], ['org:x']]) {
      const [entry] = await query(t, { extra: { properties } });
      expect(entry).not.toHaveProperty('properties');
      expect(entry).toMatchObject({ id: 'tank/data@one', createtxg: expect.stringMatching(/^\d+$/) });
    }
    // zettarepl.annotate_snapshots then reads `snapshot["properties"]` (MW/plugins/zettarepl_/snapshot_removal_date.py:145).
    const error = await t.callError(t.admin, 'pool.snapshot.query', [], {
      limit: 5,
      extra: { retention: true, properties: ['name'] },
    });
    expect(error.message).toContain("'properties'");
    // A ZFS property the emulator does not keep still makes the listing a full one.
    const [written] = await query(t, { extra: { properties: ['written'] } });
    expect(written!.properties).toEqual({ 'org:x': expect.objectContaining({ value: 'y', source: 'LOCAL' }) });
  });

  it('extra.properties that is no container is a TypeError (`prop_name in 5`)', async () => {
    const t = await withSnapshots();
    const error = await t.callError(t.admin, 'pool.snapshot.query', [], { extra: { properties: 5 } });
    expect(error.message).toContain("argument of type 'int' is not iterable");
  });

  it('extra.min_txg and max_txg bound createtxg, both ends kept (zfs_iter_snapshots), the fast name listing too (MW/plugins/zfs_/snapshot.py:96-97), not a bare count (:72-78)', async () => {
    const t = await withSnapshots();
    const all = await query(t, {}, []);
    const txg = (id: string) => Number(all.find((e) => e.id === id)!.createtxg);
    const two = txg('tank/data@two');
    const ids = (entries: Entry[]) => entries.map((e) => e.id);
    expect(ids(await query(t, { extra: { min_txg: two, max_txg: two } }, []))).toEqual(['tank/data@two']);
    expect(ids(await query(t, { extra: { min_txg: two } }, []))).toEqual(['tank/data@two', 'tank/data@three']);
    expect(ids(await query(t, { extra: { max_txg: two } }, []))).toEqual(['tank/data@one', 'tank/data@two']);
    expect(await query(t, { select: ['name'], extra: { max_txg: two } }, [])).toEqual([
      { name: 'tank/data@one' },
      { name: 'tank/data@two' },
    ]);
    const count = (filters: unknown[]) =>
      t.call(t.admin, 'pool.snapshot.query', filters, { count: true, extra: { min_txg: two } });
    expect(await count([['pool', '=', 'tank']])).toBe(2);
    // A count with no filters is the snapshot counts' sum, read with no bounds (:72-78).
    expect(await count([])).toBe(3);
  });

  it("entries' keys in PoolSnapshotEntry's order, id first, as the result model dumps them (MW/api/v25_10_1/pool_snapshot.py:83-106, MW/api/base/handler/result.py:13-17)", async () => {
    const t = await withSnapshots();
    const model = ['id', 'properties', 'pool', 'name', 'type', 'snapshot_name', 'dataset', 'createtxg'];
    const [full] = await query(t, { extra: { holds: true, retention: true } });
    expect(Object.keys(full!)).toEqual([...model, 'holds', 'retention']);
    const [simple] = await query(t, { extra: { properties: ['name'] } });
    expect(Object.keys(simple!)).toEqual(model.filter((k) => k !== 'properties'));
    const one = await t.call<Entry>(t.admin, 'pool.snapshot.get_instance', 'tank/data@one');
    expect(Object.keys(one)).toEqual(model);
    const made = await t.call<Entry>(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'four' });
    expect(Object.keys(made)).toEqual(model);
    // A property's fields in PoolSnapshotEntryPropertyFields' order (:43-59), not py-libzfs's (`parsed` first).
    expect(Object.keys(one.properties!.used!)).toEqual(['value', 'rawvalue', 'source', 'parsed']);
  });
});
