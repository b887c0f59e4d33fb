/**
 * An answer's keys come in its result model's field order: the middleware answers every method
 * with a model through `model(result=result).model_dump(...)` (MW/api/base/handler/result.py:13-17
 * at TS-25.10.1, :24-29 at TS-26.0.0-BETA.3; MW/main.py:856-862 at TS-25.10.1), whatever order
 * the plugin built the dict in. The dispatcher orders each answer by the release's result schema
 * (rpc/model-order.ts); the contract declares each model's fields in the model's order.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import {
  carriesPyNumbers,
  pyJsonStringify,
  setPyNumber,
  withPyNumbers,
} from '../../../src/core/appliance/py-numbers.js';
import { modelOrderer } from '../../../src/core/rpc/model-order.js';
import { openTestAppliance, type TestAppliance } from '../../helpers/appliance.js';
import { localPush } from '../../helpers/replication-spec.js';
import * as zod from 'zod';

type Entry = Record<string, unknown>;
type Release = 'truenas-25.10.1' | 'truenas-26.0';

async function furnished(release: Release): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[release] });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/docs' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/src' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/dst' });
  await t.call(t.admin, 'sharing.nfs.create', { path: '/mnt/tank/docs' });
  await t.call(t.admin, 'sharing.smb.create', { name: 'docs', path: '/mnt/tank/docs' });
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/src' });
  await t.call(t.admin, 'replication.create', localPush({ name: 'backup', periodic_snapshot_tasks: [1] }));
  await t.call(t.admin, 'user.create', {
    username: 'alice',
    full_name: 'Alice',
    group_create: true,
    password: 'Tr0ub4dor&3 horse',
  });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/docs', name: 'one' });
  return t;
}

describe('answers in their result model’s key order', () => {
  it('25.10.1 replication entries: `id` first, as ReplicationEntry declares it (MW/api/v25_10_1/replication.py:40-41 at TS-25.10.1)', async () => {
    const t = await furnished('truenas-25.10.1');
    const [listed] = await t.call<Entry[]>(t.admin, 'replication.query');
    expect(Object.keys(listed!).slice(0, 4)).toEqual(['id', 'name', 'direction', 'transport']);
    expect(Object.keys(listed!).slice(-3)).toEqual(['state', 'job', 'has_encrypted_dataset_keys']);
    const made = await t.call<Entry>(t.admin, 'replication.create', localPush({ name: 'again' }));
    expect(Object.keys(made)[0]).toBe('id');
    const updated = await t.call<Entry>(t.admin, 'replication.update', made.id, { enabled: false });
    expect(Object.keys(updated)[0]).toBe('id');
    // The bound task (PoolSnapshotTaskDBEntry, MW/api/v25_10_1/pool_snapshottask.py:64-68): `id` after the task's fields.
    const [task] = listed!.periodic_snapshot_tasks as Entry[];
    expect(Object.keys(task!).slice(-2)).toEqual(['id', 'state']);
  });

  it("25.10.1 entries the plugins build in another order: datasets, directory entries, stat, a share's options", async () => {
    const t = await furnished('truenas-25.10.1');
    // PoolDatasetEntry (MW/api/v25_10_1/pool_dataset.py:62-83 at TS-25.10.1): the dataset's own fields
    // before its properties, not py-libzfs's order (properties first, `children` last).
    const [docs] = await t.call<Entry[]>(t.admin, 'pool.dataset.query', [['id', '=', 'tank/docs']]);
    expect(Object.keys(docs!).slice(0, 11)).toEqual([
      'id',
      'type',
      'name',
      'pool',
      'encrypted',
      'encryption_root',
      'key_loaded',
      'children',
      'user_properties',
      'locked',
      'deduplication',
    ]);
    expect(Object.keys(docs!).at(-1)).toBe('mountpoint');
    // FilesystemDirEntry (MW/api/v25_10_1/filesystem.py:149-189): `acl` after `mount_id`.
    const [entry] = await t.call<Entry[]>(t.admin, 'filesystem.listdir', '/mnt/tank');
    const lk = Object.keys(entry!);
    expect(lk.slice(lk.indexOf('mount_id'), lk.indexOf('mount_id') + 3)).toEqual(['mount_id', 'acl', 'uid']);
    // FilesystemStatData (:225-270): the times, dev, inode, nlink and acl before is_mountpoint.
    const stat = Object.keys(await t.call<Entry>(t.admin, 'filesystem.stat', '/mnt/tank/docs'));
    expect(stat.slice(stat.indexOf('gid'), stat.indexOf('gid') + 3)).toEqual(['gid', 'atime', 'mtime']);
    expect(stat.slice(stat.indexOf('acl'), stat.indexOf('acl') + 4)).toEqual([
      'acl',
      'is_mountpoint',
      'is_ctldir',
      'attributes',
    ]);
    // A default share's options are DefaultOpt's (smb.py:279-289), not LegacyOpt's, which holds its keys too (:303).
    const [share] = await t.call<Entry[]>(t.admin, 'sharing.smb.query');
    expect(Object.keys(share!.options as Entry)).toEqual(['aapl_name_mangling', 'hostsallow', 'hostsdeny']);
  });

  it('26.0 entries with fields 26 added: each where its model declares it (MW/api/v26_0_0/user.py:105-111, pool_dataset.py:88-93, smb.py:998-1013 and :156-306 at TS-26.0.0-BETA.3)', async () => {
    const t = await furnished('truenas-26.0');
    const [alice] = await t.call<Entry[]>(t.admin, 'user.query', [['username', '=', 'alice']]);
    const keys = Object.keys(alice!);
    expect(keys.slice(keys.indexOf('smb'), keys.indexOf('smb') + 3)).toEqual(['smb', 'webshare', 'userns_idmap']);
    expect(keys.at(-1)).toBe('api_keys');
    const made = await t.call<Entry>(t.admin, 'user.create', {
      username: 'bob',
      full_name: 'Bob',
      group_create: true,
      random_password: true,
    });
    expect(Object.keys(made).slice(-2)).toEqual(['api_keys', 'password']);
    // PoolDatasetEntry's `tier` sits after `locked` (pool_dataset.py:88-93), absent with tiering off, as here.
    const dataset = t.appliance.contract.get('pool.dataset.query')!.result;
    const [docs] = await t.call<Entry[]>(t.admin, 'pool.dataset.query', [['id', '=', 'tank/docs']]);
    const ordered = modelOrderer(dataset)!([{ tier: null, ...docs! }]) as Entry[];
    const dk = Object.keys(ordered[0]!);
    expect(dk.slice(dk.indexOf('locked'), dk.indexOf('locked') + 2)).toEqual(['locked', 'tier']);
    const [share] = await t.call<Entry[]>(t.admin, 'sharing.smb.query');
    expect(Object.keys(share!).slice(0, 7)).toEqual([
      'id',
      'purpose',
      'name',
      'path',
      'dataset',
      'relative_path',
      'enabled',
    ]);
    expect(Object.keys(share!).at(-1)).toBe('tier');
    const smb = await t.call<Entry>(t.admin, 'smb.config');
    const sk = Object.keys(smb);
    expect(sk.indexOf('minimum_protocol')).toBe(sk.indexOf('description') + 1);
    expect(sk.indexOf('search_protocols')).toBe(sk.indexOf('aapl_extensions') + 1);
    expect(sk.at(-1)).toBe('stateful_failover');
  });

  for (const release of ['truenas-25.10.1', 'truenas-26.0'] as const) {
    it(`${release}: every entry of the methods stor reads follows its model's order, nested models too`, async () => {
      const t = await furnished(release);
      const calls: [string, ...unknown[]][] = [
        ['auth.me'],
        ['system.info'],
        ['user.query'],
        ['group.query'],
        ['privilege.query'],
        ['api_key.query'],
        ['pool.query'],
        ['pool.dataset.query'],
        ['pool.snapshot.query', [['id', '=', 'tank/docs@one']], { extra: { holds: true, retention: true } }],
        ['pool.snapshottask.query'],
        ['replication.query'],
        ['sharing.nfs.query'],
        ['sharing.smb.query'],
        ['smb.config'],
        ['service.query'],
        ['keychaincredential.query'],
        ['filesystem.stat', '/mnt/tank/docs'],
        ['filesystem.listdir', '/mnt/tank'],
        ['core.get_jobs'],
      ];
      for (const [method, ...params] of calls) {
        const answer = await t.call(t.admin, method, ...params);
        const schema = t.appliance.contract.get(method)!.result;
        // The orderer leaves an answer already in order as it is: the very same object.
        expect(modelOrderer(schema)?.(answer) ?? answer, method).toBe(answer);
      }
    });
  }
});

describe('the orderer', () => {
  const entry = zod.object({
    id: zod.int(),
    name: zod.string(),
    inner: zod.object({ a: zod.int(), b: zod.int() }).nullable(),
  });
  const order = (schema: z.ZodType, value: unknown) => modelOrderer(schema)!(value);

  it("moves keys into the model's order, nested models too, and keeps extra keys after the fields in the order given", () => {
    const loose = entry.catchall(zod.unknown());
    const out = order(zod.union([zod.array(loose), loose, zod.int()]), [
      { z: 1, inner: { b: 2, a: 1 }, name: 'n', y: 2, id: 3 },
    ]);
    expect(JSON.stringify(out)).toBe('[{"id":3,"name":"n","inner":{"a":1,"b":2},"z":1,"y":2}]');
  });

  it('keeps a field the model types `dict` as given (MW/api/v25_10_1/auth.py:164: `privilege: dict`)', async () => {
    const t = await openTestAppliance({ ...EMULATIONS['truenas-25.10.1'] });
    const schema = t.appliance.contract.get('auth.me')!.result;
    const me = await t.call<Entry>(t.admin, 'auth.me');
    const privilege = Object.fromEntries(Object.entries(me.privilege as Entry).reverse());
    const out = order(schema, { ...me, privilege }) as Entry;
    expect(Object.keys(out.privilege as Entry)).toEqual(Object.keys(privilege));
  });

  it("a copy keeps the numbers Python writes otherwise (a ratio's 1.0) and the answer's mark", () => {
    const inner: Entry = { b: 2 };
    setPyNumber(inner, 'a', 1, '1.0');
    const answer = withPyNumbers([{ inner, name: 'n', id: 3 }]);
    const out = order(zod.array(entry), answer);
    expect(out).not.toBe(answer);
    expect(carriesPyNumbers(out)).toBe(true);
    expect(pyJsonStringify(out)).toBe('[{"id":3,"name":"n","inner":{"a":1.0,"b":2}}]');
  });

  it('answers the value itself when nothing in it moved', () => {
    const value = [{ id: 1, name: 'a', inner: { a: 1, b: 2 } }];
    expect(order(zod.array(entry), value)).toBe(value);
  });
});
