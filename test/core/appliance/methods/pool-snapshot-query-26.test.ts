/**
 * 26.0's pool.snapshot.query and get_instance as its plugin builds them (MW/plugins/pool_/snapshot.py
 * at TS-26.0.0-BETA.3, the same on stable/26, over MW/plugins/zfs/snapshot_query_impl.py), beside
 * 25.10.1's (MW/plugins/zfs_/snapshot.py at TS-25.10.1, over py-libzfs's snapshots_serialized). The
 * entry's model is the same in both (MW/api/v26_0_0/pool_snapshot.py:88-104); what is in it is not.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { removalDatePropertyOf } from '../../../../src/core/appliance/snapshot-tasks/stored-removal-dates.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { encodeResponse, successResponse } from '../../../../src/core/rpc/codec.js';

type Entry = Record<string, unknown> & { id: string; properties: Record<string, Record<string, unknown>> };

async function withSnapshots(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data/child' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/other' });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'one', recursive: true });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'two' });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/other', name: 'one' });
  return t;
}

const ids = (entries: unknown) => (entries as Entry[]).map((e) => e.id);

describe("pool.snapshot.query's entries on 26.0", () => {
  it('carry no properties unless extra.properties names them (MW/plugins/zfs/property_management.py:226-228), and holds always (MW/plugins/pool_/snapshot.py:146-150)', async () => {
    const t = await withSnapshots('26.0');
    const [entry] = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']]);
    expect(entry).toEqual({
      id: 'tank/data@one',
      name: 'tank/data@one',
      pool: 'tank',
      type: 'SNAPSHOT',
      snapshot_name: 'one',
      dataset: 'tank/data',
      createtxg: expect.any(String),
      properties: {},
      holds: {},
    });
    // 25.10.1: every property py-libzfs lists, and no holds without extra.holds.
    const t25 = await withSnapshots('25.10.1');
    const [entry25] = await t25.call<Entry[]>(t25.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']]);
    expect(Object.keys(entry25!.properties)).toContain('referenced');
    expect(entry25).not.toHaveProperty('holds');
  });

  it('extra.properties: snapshot properties in ZFS order, then name and createtxg; source NONE, raw text, str() of the parsed value (:106-135)', async () => {
    const t = await withSnapshots('26.0');
    const [entry] = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']], {
      extra: { properties: ['createtxg', 'name', 'referenced', 'creation', 'compressratio', 'bogus', 'org:x'] },
    });
    const p = entry!.properties;
    // Unknown names and user properties are dropped (property_management.py:186-194).
    expect(Object.keys(p)).toEqual(['creation', 'referenced', 'compressratio', 'name', 'createtxg']);
    const seconds = p.creation!.parsed as number;
    expect(p.creation).toEqual({ value: String(seconds), rawvalue: String(seconds), source: 'NONE', parsed: seconds });
    expect(Number.isInteger(seconds)).toBe(true);
    expect(p.referenced).toMatchObject({ source: 'NONE', parsed: expect.any(Number) });
    expect(p.referenced!.value).toBe(String(p.referenced!.parsed));
    expect(p.compressratio).toEqual({ value: '1.0', rawvalue: '1.00', source: 'NONE', parsed: 1 });
    expect(p.name).toEqual({
      value: 'tank/data@one',
      rawvalue: 'tank/data@one',
      source: 'NONE',
      parsed: 'tank/data@one',
    });
    const txg = Number(entry!.createtxg);
    expect(p.createtxg).toEqual({ value: String(txg), rawvalue: String(txg), source: 'NONE', parsed: txg });
  });

  it('extra.holds shows the truenas tag as 1, and only it (:146-150)', async () => {
    const t = await withSnapshots('26.0');
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/data@one');
    const query = (extra: object) =>
      t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', 'tank/data']], { extra });
    expect((await query({ holds: true })).map((e) => e.holds)).toEqual([{ truenas: 1 }, {}]);
    expect((await query({})).map((e) => e.holds)).toEqual([{}, {}]);
    await t.call(t.admin, 'pool.snapshot.release', 'tank/data@one');
  });

  it('id/name/pool/dataset with = or in are paths to list, not filters (:157-183, :225-236, :256-270)', async () => {
    const t = await withSnapshots('26.0');
    const q = (filters: unknown[]) => t.call(t.admin, 'pool.snapshot.query', filters);
    // A dataset's name as `id`: its own snapshots.
    expect(ids(await q([['id', '=', 'tank/data']]))).toEqual(['tank/data@one', 'tank/data@two']);
    // `pool` lists recursively from the path it names, which need not be a pool.
    expect(ids(await q([['pool', '=', 'tank/data']]))).toEqual([
      'tank/data@one',
      'tank/data@two',
      'tank/data/child@one',
    ]);
    // Several add up rather than narrow.
    expect(
      ids(
        await q([
          ['dataset', '=', 'tank/other'],
          ['id', '=', 'tank/data@two'],
        ]),
      ),
    ).toEqual(['tank/other@one', 'tank/data@two']);
    // A path that does not exist: none at all, even beside one that does.
    expect(await q([['dataset', '=', 'tank/nope']])).toEqual([]);
    expect(await q([['id', 'in', ['tank/data@one', 'tank/data@nope']]])).toEqual([]);
    // An empty `in` names no path, so every snapshot is listed.
    expect(ids(await q([['id', 'in', []]]))).toHaveLength(4);
    // A path that is no string: ZFSResourceSnapshotQuery's `paths: UniqueList[str]` refuses it.
    // pydantic's `str()` of it carries the error's type and input (stable/26 MW/plugins/pool_/snapshot.py:260).
    expect((await t.callError(t.admin, 'pool.snapshot.query', [['id', '=', 5]])).message).toContain(
      '1 validation error for ZFSResourceSnapshotQuery\npaths.0\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]',
    );
    expect((await t.callError(t.admin, 'pool.snapshot.query', [['id', 'in', ['tank/data', [1]]]])).message).toContain(
      'paths.1\n  Input should be a valid string [type=string_type, input_value=[1], input_type=list]',
    );
    // `in` a value that is no list: `paths.extend(5)`.
    expect((await t.callError(t.admin, 'pool.snapshot.query', [['id', 'in', 5]])).message).toContain(
      "'int' object is not iterable",
    );
    // Another operator stays a filter.
    expect(ids(await q([['id', '^', 'tank/data@']]))).toEqual(['tank/data@one', 'tank/data@two']);
    // `in` a dict: `paths.extend(dict)` takes its keys (:175, :181); the filter validators look at no
    // operand of `in` (MW/api/base/validators/filters.py:43-68).
    expect(ids(await q([['id', 'in', { 'tank/other@one': 1, 'tank/data@two': null }]]))).toEqual([
      'tank/other@one',
      'tank/data@two',
    ]);
    expect(ids(await q([['dataset', 'in', { 'tank/other': {} }]]))).toEqual(['tank/other@one']);
    // `nin` stays a filter: filter_list's op_nin, `not operator.contains(dict, x)`, a key test (filter_ops.py:17-20).
    expect(ids(await q([['id', 'nin', { 'tank/other@one': 1, 'tank/data@one': 2 }]]))).toEqual([
      'tank/data@two',
      'tank/data/child@one',
    ]);

    // 25.10.1 filters them as filter_list does.
    const t25 = await withSnapshots('25.10.1');
    // `in` a dict: `operator.contains(dict, x)`, a key test (TS-25.10.1 MW/utils/filter_list.py:128-144).
    expect(
      ids(
        await t25.call(t25.admin, 'pool.snapshot.query', [['id', 'in', { 'tank/other@one': 1, 'tank/data@two': 2 }]]),
      ),
    ).toEqual(['tank/data@two', 'tank/other@one']);
    expect(
      ids(
        await t25.call(t25.admin, 'pool.snapshot.query', [['id', 'nin', { 'tank/other@one': 1, 'tank/data@one': 2 }]]),
      ),
    ).toEqual(['tank/data@two', 'tank/data/child@one']);
    expect(await t25.call(t25.admin, 'pool.snapshot.query', [['id', '=', 'tank/data']])).toEqual([]);
    expect(
      await t25.call(t25.admin, 'pool.snapshot.query', [
        ['dataset', '=', 'tank/other'],
        ['id', '=', 'tank/data@two'],
      ]),
    ).toEqual([]);
  });

  it('extra.min_txg and max_txg bound createtxg (MW/plugins/zfs/snapshot_query_impl.py:67-75)', async () => {
    const t = await withSnapshots('26.0');
    const all = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', []);
    const txg = (id: string) => Number(all.find((e) => e.id === id)!.createtxg);
    const two = txg('tank/data@two');
    const bounded = await t.call(t.admin, 'pool.snapshot.query', [], { extra: { min_txg: two, max_txg: two } });
    expect(ids(bounded)).toEqual(['tank/data@two']);
  });

  it('get_instance is the query by id (MW/service/crud_service.py:239-255): a dataset name finds its first snapshot', async () => {
    const t = await withSnapshots('26.0');
    const got = await t.call<Entry>(t.admin, 'pool.snapshot.get_instance', 'tank/data');
    expect(got.id).toBe('tank/data@one');
    expect(got.properties).toEqual({});
    expect((await t.callError(t.admin, 'pool.snapshot.get_instance', 'tank/data@nope')).message).toContain(
      'PoolSnapshot tank/data@nope does not exist',
    );
  });

  it('create answers the entry create_impl reads back: creation and createtxg, no holds (MW/plugins/zfs/snapshot_create_impl.py:122-133)', async () => {
    const t = await withSnapshots('26.0');
    const made = await t.call<Entry>(t.admin, 'pool.snapshot.create', { dataset: 'tank/other', name: 'three' });
    // PoolSnapshotCreateUpdateEntry's order, as the result model dumps it (MW/api/v26_0_0/pool_snapshot.py:88-108,
    // MW/api/base/handler/result.py:24-29 at TS-26.0.0-BETA.3), not _transform_snapshot_entry's (`properties` last).
    const model = ['id', 'properties', 'pool', 'name', 'type', 'snapshot_name', 'dataset', 'createtxg'];
    expect(Object.keys(made)).toEqual(model);
    expect(Object.keys(made.properties)).toEqual(['creation', 'createtxg']);
    const [listed] = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/other@three']], {
      extra: { holds: true, retention: true },
    });
    expect(Object.keys(listed!)).toEqual([...model, 'holds', 'retention']);
  });

  it("extra.retention reads the removal date from the snapshot's user properties, with no id-or-limit check (MW/plugins/zettarepl_/snapshot_removal_date.py:150-153)", async () => {
    const t = await withSnapshots('26.0');
    const property = removalDatePropertyOf(t.appliance);
    await t.call(t.admin, 'pool.snapshot.create', {
      dataset: 'tank/other',
      name: 'kept',
      properties: { [property]: '2030-01-02T03:04:05' },
    });
    const answer = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', 'tank/other']], {
      extra: { retention: true },
    });
    expect(answer.map((e) => [e.id, (e.retention as { source?: string } | null)?.source ?? null])).toEqual([
      ['tank/other@one', null],
      ['tank/other@kept', 'property'],
    ]);
    expect(answer[1]).not.toHaveProperty('user_properties');
  });
});

describe("26.0's snapshot properties ZFS lists beyond the space ones", () => {
  it('guid, objsetid and written as truenas_pylibzfs parses them; userrefs, clones, defer_destroy are no filesystem property (py_zfs_prop_sets.c ZFS_FILESYSTEM_SNAPSHOT_PROPERTIES)', async () => {
    const t = await withSnapshots('26.0');
    const props = ['written', 'guid', 'objsetid', 'userrefs', 'clones', 'defer_destroy'];
    const entries = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', 'tank/data']], {
      extra: { properties: props },
    });
    const [one, two] = entries.map((e) => e.properties);
    expect(Object.keys(one!)).toEqual(['guid', 'objsetid', 'written']);
    // `value` is str() of the parsed int, `rawvalue` ZFS's text (MW/plugins/pool_/snapshot.py:106-115).
    expect(one!.guid!.value).toMatch(/^\d+$/);
    expect(one!.guid!.rawvalue).toBe(one!.guid!.value);
    expect(one!.guid!.parsed).toBe(Number(one!.guid!.value));
    expect(one!.objsetid!.parsed).not.toBe(two!.objsetid!.parsed);
    expect(one!.objsetid!.value).toBe(String(one!.objsetid!.parsed));
    // Nothing written to tank/data between `one` and `two`.
    expect(two!.written).toEqual({ value: '0', rawvalue: '0', source: 'NONE', parsed: 0 });
  });

  it('over the wire, a float is written as Python writes it (1.0) and a guid exactly (truenas_api_client json.dumps)', async () => {
    const t = await withSnapshots('26.0');
    const answer = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']], {
      extra: { properties: ['compressratio', 'refcompressratio', 'guid'] },
    });
    const text = encodeResponse(successResponse(1, answer));
    expect(text).toContain('"compressratio":{"value":"1.0","rawvalue":"1.00","source":"NONE","parsed":1.0}');
    expect(text).toContain('"refcompressratio":{"value":"1.0","rawvalue":"1.00","source":"NONE","parsed":1.0}');
    const guid = answer[0]!.properties.guid!.value as string;
    expect(text).toContain(`"guid":{"value":"${guid}","rawvalue":"${guid}","source":"NONE","parsed":${guid}}`);
    // get_instance answers the same way.
    const one = await t.call(t.admin, 'pool.snapshot.get_instance', 'tank/data@one', {
      extra: { properties: ['compressratio'] },
    });
    expect(encodeResponse(successResponse(2, one))).toContain('"parsed":1.0}');
  });

  it('25.10.1: the ratios are py-libzfs text, parsed as the literal text (converter.pxi has no float)', async () => {
    const t = await withSnapshots('25.10.1');
    const [entry] = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']]);
    for (const name of ['compressratio', 'refcompressratio'])
      expect(entry!.properties[name]).toEqual({ value: '1.00x', rawvalue: '1.00', source: 'NONE', parsed: '1.00' });
  });
});

describe("26.0's snapshot paths as ZFSResourceSnapshotQuery validates them", () => {
  it("a path given twice is UniqueList's error as pydantic writes it (MW/api/base/types/list.py:12-19, MW/api/v26_0_0/zfs_resource_snapshot.py:176-181)", async () => {
    const t = await withSnapshots('26.0');
    const error = await t.callError(t.admin, 'pool.snapshot.query', [['id', 'in', ['tank/data@one', 'tank/data@one']]]);
    expect(error.toJSON().data).toMatchObject({
      reason:
        '1 validation error for ZFSResourceSnapshotQuery\npaths\n' +
        "  List must be unique [type=unique_list, input_value=['tank/data@one', 'tank/data@one'], input_type=list]",
      trace: { class: 'ValidationError' },
    });
    // `id` and `name` naming the same snapshot add up to one list (MW/plugins/pool_/snapshot.py:157-183);
    // pydantic-core cuts an input's repr past 50 characters to its first 25 and last 24.
    const both = await t.callError(t.admin, 'pool.snapshot.query', [
      ['id', 'in', ['tank/data/child@one', 'tank/data@one']],
      ['name', '=', 'tank/data/child@one'],
    ]);
    expect((both.toJSON().data as { reason: string }).reason).toContain(
      "input_value=['tank/data/child@one', '..., 'tank/data/child@one'], input_type=list]",
    );
  });

  it("an input's repr as pydantic 2.13 writes it: cut by UTF-8 bytes, whole characters kept; what str.isprintable() refuses escaped", async () => {
    const t = await withSnapshots('26.0');
    const reason = async (paths: string[]) =>
      ((await t.callError(t.admin, 'pool.snapshot.query', [['id', 'in', paths]])).toJSON().data as { reason: string })
        .reason;
    // `é` is two bytes: 25 bytes of `['tank/données/été@instantané', …` end after `ins`.
    expect(await reason(['tank/données/été@instantané', 'tank/données/été@instantané'])).toContain(
      "input_value=['tank/données/été@ins...ées/été@instantané'], input_type=list]",
    );
    // A no-break space is no printable character to Python: repr() writes it `\xa0`.
    expect(await reason(['tank/a\u00a0b@s', 'tank/a\u00a0b@s'])).toContain(
      "input_value=['tank/a\\xa0b@s', 'tank/a\\xa0b@s'], input_type=list]",
    );
  });
});
