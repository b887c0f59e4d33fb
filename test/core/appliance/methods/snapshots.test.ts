/**
 * pool.snapshot.* of `stor serve --emulate truenas-25.10.1` over a real WebSocket: answers checked
 * against the contract (MW/api/v25_10_1/pool_snapshot.py), errors against the texts the 25.10.1
 * source raises (MW/plugins/zfs_/snapshot.py, snapshot_actions.py; py-libzfs libzfs.pyx for the
 * ZFSException texts), roles against MW/plugins/pool_/snapshot.py (role_prefix SNAPSHOT,
 * role_separate_delete; rollback SNAPSHOT_WRITE or POOL_WRITE).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, type WsClient } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf } from '../../../conformance/harness.js';

async function fail(ws: WsClient, method: string, params: unknown[]) {
  return errorOf(await ws.call(method, params));
}

describe('pool.snapshot.* as 25.10.1', () => {
  it('create, query (list, count, get, extra.holds), get_instance answer the PoolSnapshotEntry shapes (pool_snapshot.py PoolSnapshotEntry, PoolSnapshotCreateUpdateEntry)', async () => {
    const { ws } = await adminSession();
    await conforming(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    const made = await conforming<Record<string, any>>(ws, 'pool.snapshot.create', [
      { dataset: 'tank/a', name: 'first', properties: { 'org:why': 'test' } },
    ]);
    // PoolSnapshotCreateUpdateEntry's field order, as the result model dumps it (MW/api/v25_10_1/
    // pool_snapshot.py:83-111, MW/api/base/handler/result.py:13-17), not py-libzfs's dict order.
    expect(Object.keys(made)).toEqual([
      'id',
      'properties',
      'pool',
      'name',
      'type',
      'snapshot_name',
      'dataset',
      'createtxg',
    ]);
    expect(made).toMatchObject({
      id: 'tank/a@first',
      name: 'tank/a@first',
      pool: 'tank',
      type: 'SNAPSHOT',
      snapshot_name: 'first',
      dataset: 'tank/a',
      createtxg: expect.stringMatching(/^\d+$/),
    });
    expect(made.properties['org:why']).toEqual({ value: 'test', rawvalue: 'test', source: 'LOCAL', parsed: 'test' });
    expect(made.properties.creation).toMatchObject({ source: 'NONE', parsed: { $date: expect.any(Number) } });
    expect(made.properties.referenced).toEqual({ value: '0B', rawvalue: '0', source: 'NONE', parsed: 0 });

    expect(await conforming(ws, 'pool.snapshot.query', [[['dataset', '=', 'tank/a']]])).toEqual([made]);
    expect(await conforming(ws, 'pool.snapshot.query', [[], { count: true }])).toBe(1);
    expect(
      await conforming(ws, 'pool.snapshot.query', [
        [['id', '=', 'tank/a@first']],
        { get: true, select: ['id', 'snapshot_name'] },
      ]),
    ).toEqual({ id: 'tank/a@first', snapshot_name: 'first' });
    expect(await conforming(ws, 'pool.snapshot.query', [[], { extra: { holds: true } }])).toEqual([
      { ...made, holds: {} },
    ]);
    expect(await conforming(ws, 'pool.snapshot.get_instance', ['tank/a@first'])).toEqual(made);
    expect(await fail(ws, 'pool.snapshot.get_instance', ['tank/a@none'])).toMatchObject({
      code: -32602,
      data: { errname: 'EINVAL', reason: '[ENOENT] None: PoolSnapshot tank/a@none does not exist' },
    });
  });

  it('a naming schema is formatted with the time; one without %M is refused as zettarepl refuses it (replication.new_snapshot_name; zettarepl/snapshot/name.py)', async () => {
    const { ws } = await adminSession();
    const made = await conforming<{ snapshot_name: string }>(ws, 'pool.snapshot.create', [
      { dataset: 'tank', naming_schema: 'auto-%Y-%m-%d_%H-%M' },
    ]);
    expect(made.snapshot_name).toMatch(/^auto-\d{4}-\d{2}-\d{2}_\d{2}-\d{2}$/);
    const error = await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank', naming_schema: 'auto-%Y-%m-%d_%H' }]);
    expect(error.code).toBe(-32602);
    expect(error.data.extra).toEqual([
      ['data.PoolSnapshotCreateWithName.name', 'Field required', 22],
      ['data.PoolSnapshotCreateWithName.naming_schema', 'Extra inputs are not permitted', 22],
      [
        'data.PoolSnapshotCreateWithSchema.naming_schema',
        'Value error, %M must be present in snapshot naming schema',
        22,
      ],
    ]);
  });

  it('a naming schema with a character ZFS refuses, or with %s and another placeholder, is refused in zettarepl’s words (zettarepl/snapshot/name.py:115-123)', async () => {
    const { ws } = await adminSession();
    for (const [schema, message] of [
      ['auto/%Y%m%d%H%M', '/ is not an allowed character in ZFS snapshot name'],
      ['auto-%s-%H', 'No other placeholder can be used with %s in naming schema'],
    ]) {
      const error = await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank', naming_schema: schema }]);
      expect(error.data.extra).toContainEqual([
        'data.PoolSnapshotCreateWithSchema.naming_schema',
        `Value error, ${message}`,
        22,
      ]);
    }
  });

  it('create errors: invalid name, exclude without recursive (ValidationErrors snapshot_create.*), a taken name EEXIST, a missing dataset EFAULT (MW/plugins/zfs_/snapshot.py:140-200)', async () => {
    const { ws } = await adminSession();
    expect(
      (await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'bad/name', exclude: ['tank/x'] }])).data,
    ).toMatchObject({
      reason:
        '[EINVAL] snapshot_create.exclude: This option has no sense for non-recursive snapshots\n[EINVAL] snapshot_create.name: Invalid snapshot name\n',
    });
    await conforming(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'once' }]);
    expect(await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'once' }])).toMatchObject({
      code: -32001,
      data: {
        error: 17,
        errname: 'EEXIST',
        reason: "[EEXIST] Failed to snapshot tank@once: cannot create snapshot 'tank@once': dataset already exists",
      },
      traceClass: 'CallError',
    });
    expect(await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank/nope', name: 'x' }])).toMatchObject({
      code: -32001,
      data: {
        error: 14,
        errname: 'EFAULT',
        reason: '[EFAULT] Failed to snapshot tank/nope@x: Dataset tank/nope not found',
      },
    });
    const both = await fail(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'x', naming_schema: '%Y%m%d%H%M' }]);
    expect(both.data.extra).toEqual([
      ['data.PoolSnapshotCreateWithName.naming_schema', 'Extra inputs are not permitted', 22],
      ['data.PoolSnapshotCreateWithSchema.name', 'Extra inputs are not permitted', 22],
    ]);
  });

  it('delete and rollback answer true / null; their errors as libzfs and zfs rollback word them', async () => {
    const { ws } = await adminSession();
    await conforming(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'one' }]);
    await conforming(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 'two' }]);
    expect(await fail(ws, 'pool.snapshot.rollback', ['tank@none'])).toMatchObject({
      code: -32001,
      data: {
        error: 14,
        reason: "[EFAULT] Failed to rollback snapshot: cannot open 'tank@none': dataset does not exist",
      },
    });
    expect((await fail(ws, 'pool.snapshot.rollback', ['tank@one'])).data.reason).toContain(
      "cannot rollback to 'tank@one': more recent snapshots or bookmarks exist",
    );
    expect(await fail(ws, 'pool.snapshot.rollback', ['tank@one', { recursive: true, nope: 1 }])).toMatchObject({
      code: -32602,
      data: { extra: [['options.nope', 'Extra inputs are not permitted', 22]] },
    });
    expect(await conforming(ws, 'pool.snapshot.rollback', ['tank@one', { recursive: true }])).toBeNull();
    expect(await conforming(ws, 'pool.snapshot.delete', ['tank@one'])).toBe(true);
    expect(await fail(ws, 'pool.snapshot.delete', ['tank@one'])).toMatchObject({
      code: -32602,
      data: { reason: '[ENOENT] None: Snapshot tank@one not found', extra: [[null, 'Snapshot tank@one not found', 2]] },
    });
  });

  it('roles: SNAPSHOT_READ lists, SNAPSHOT_WRITE creates and rolls back but may not delete (SNAPSHOT_DELETE), READONLY_ADMIN only reads', async () => {
    const { server, ws } = await adminSession();
    await conforming(ws, 'pool.snapshot.create', [{ dataset: 'tank', name: 's' }]);
    const denied = { code: -32001, data: { error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized' } };

    const reader = await loggedInWs(
      server.rpcUrl,
      (await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['READONLY_ADMIN'] })).key,
    );
    expect(await conforming(reader, 'pool.snapshot.query', [[], { count: true }])).toBe(1);
    expect(await fail(reader, 'pool.snapshot.create', [{ dataset: 'tank', name: 'r' }])).toMatchObject(denied);
    expect(await fail(reader, 'pool.snapshot.rollback', ['tank@s'])).toMatchObject(denied);

    const writer = await loggedInWs(
      server.rpcUrl,
      (await createUserWithKey(server.testAppliance, 'writer', { privilegeRoles: ['SNAPSHOT_WRITE'] })).key,
    );
    await conforming(writer, 'pool.snapshot.create', [{ dataset: 'tank', name: 'w' }]);
    expect(await conforming(writer, 'pool.snapshot.rollback', ['tank@w'])).toBeNull();
    expect(await fail(writer, 'pool.snapshot.delete', ['tank@w'])).toMatchObject(denied);

    const deleter = await loggedInWs(
      server.rpcUrl,
      (await createUserWithKey(server.testAppliance, 'deleter', { privilegeRoles: ['SNAPSHOT_DELETE'] })).key,
    );
    expect(await conforming(deleter, 'pool.snapshot.delete', ['tank@w'])).toBe(true);
    const pool = await loggedInWs(
      server.rpcUrl,
      (await createUserWithKey(server.testAppliance, 'pooladmin', { privilegeRoles: ['POOL_WRITE'] })).key,
    );
    expect(await conforming(pool, 'pool.snapshot.rollback', ['tank@s'])).toBeNull();
  });
});

describe('pool.snapshot.query extra.retention (MW/plugins/zfs_/snapshot.py:104-128)', () => {
  it('needs an id filter or a limit: CallError EINVAL; with one, each snapshot says retention null (no task, no destroy_at property)', async () => {
    const { ws } = await adminSession();
    await conforming(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    await conforming(ws, 'pool.snapshot.create', [{ dataset: 'tank/a', name: 'one' }]);
    const text = '`id` or `limit` is required if `retention` is requested';
    expect(await fail(ws, 'pool.snapshot.query', [[], { extra: { retention: true } }])).toEqual({
      code: -32001,
      message: 'Method call error',
      data: { error: 22, errname: 'EINVAL', reason: `[EINVAL] ${text}`, extra: null },
      traceClass: 'CallError',
    });
    expect(
      await fail(ws, 'pool.snapshot.query', [[['dataset', '=', 'tank/a']], { extra: { retention: true } }]),
    ).toMatchObject({ data: { reason: `[EINVAL] ${text}` } });
    const byId = await conforming<Record<string, any>[]>(ws, 'pool.snapshot.query', [
      [['id', '=', 'tank/a@one']],
      { extra: { retention: true } },
    ]);
    expect(byId.map((s) => [s.id, s.retention])).toEqual([['tank/a@one', null]]);
    const limited = await conforming<Record<string, any>[]>(ws, 'pool.snapshot.query', [
      [],
      { limit: 5, extra: { retention: true }, select: ['id', 'retention'] },
    ]);
    expect(limited).toEqual([{ id: 'tank/a@one', retention: null }]);
    // The names-only fast path returns before the check (:67-102).
    expect(
      await conforming(ws, 'pool.snapshot.query', [
        [['dataset', '=', 'tank/a']],
        { count: true, extra: { retention: true } },
      ]),
    ).toBe(1);
  });
});
