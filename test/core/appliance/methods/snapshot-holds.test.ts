/**
 * pool.snapshot.hold and release on `stor serve --emulate truenas-25.10.1`, raw frames
 * (MW/plugins/pool_/snapshot.py:31-47, MW/plugins/zfs_/snapshot_actions.py:84-118,
 * MW/api/v25_10_1/pool_snapshot.py:144-153, 218-239).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf, server25 } from '../../../conformance/harness.js';

/** A CallError with errno EFAULT, CallError's default. */
const efault = (text: string) => ({
  code: -32001,
  message: 'Method call error',
  data: { error: 14, errname: 'EFAULT', reason: `[EFAULT] ${text}`, extra: null },
  traceClass: 'CallError',
});

describe('pool.snapshot.hold / release', () => {
  it('a hold shows in extra.holds and userrefs, keeps delete away (EBUSY text), and release lets it go', async () => {
    const { ws } = await adminSession();
    await ws.result('pool.dataset.create', [{ name: 'tank/a' }]);
    await ws.result('pool.snapshot.create', [{ dataset: 'tank/a', name: 's1' }]);
    expect(await conforming(ws, 'pool.snapshot.hold', ['tank/a@s1'])).toBeNull();
    const [held] = await conforming<Record<string, any>[]>(ws, 'pool.snapshot.query', [
      [['id', '=', 'tank/a@s1']],
      { extra: { holds: true } },
    ]);
    expect(Object.keys(held!.holds)).toEqual(['truenas']);
    expect(held!.properties.userrefs.value).toBe('1');
    // A second hold of the same tag: libzfs EZFS_REFTAG_HOLD.
    expect(errorOf(await ws.call('pool.snapshot.hold', ['tank/a@s1']))).toEqual(
      efault("Failed to hold snapshot: cannot hold snapshot 'tank/a@s1': tag already exists on this dataset"),
    );
    // zfs destroy of a held snapshot is EBUSY, raised as CallError(str(e)) (MW/plugins/zfs_/snapshot.py:242-260).
    expect(errorOf(await ws.call('pool.snapshot.delete', ['tank/a@s1']))).toEqual(
      efault("cannot destroy 'tank/a@s1': dataset is busy"),
    );
    expect(await conforming(ws, 'pool.snapshot.release', ['tank/a@s1'])).toBeNull();
    const [released] = await conforming<Record<string, any>[]>(ws, 'pool.snapshot.query', [
      [['id', '=', 'tank/a@s1']],
      { extra: { holds: true } },
    ]);
    expect(released!.holds).toEqual({});
    expect(released!.properties.userrefs.value).toBe('0');
    expect(await conforming(ws, 'pool.snapshot.delete', ['tank/a@s1'])).toBe(true);
  });

  it('recursive: the same name on the children is held and released too (snapshot_actions.py:97, 107-116)', async () => {
    const { ws } = await adminSession();
    await ws.result('pool.dataset.create', [{ name: 'tank/p' }]);
    await ws.result('pool.dataset.create', [{ name: 'tank/p/c' }]);
    await ws.result('pool.snapshot.create', [{ dataset: 'tank/p', name: 'r', recursive: true }]);
    await conforming(ws, 'pool.snapshot.hold', ['tank/p@r', { recursive: true }]);
    const refs = async () =>
      (
        await ws.result<{ id: string; properties: { userrefs: { value: string } } }[]>('pool.snapshot.query', [
          [['name', '^', 'tank/p']],
        ])
      ).map((s) => [s.id, s.properties.userrefs.value]);
    expect(await refs()).toEqual([
      ['tank/p@r', '1'],
      ['tank/p/c@r', '1'],
    ]);
    await conforming(ws, 'pool.snapshot.release', ['tank/p@r']);
    expect(await refs()).toEqual([
      ['tank/p@r', '0'],
      ['tank/p/c@r', '1'],
    ]);
    await ws.result('pool.snapshot.hold', ['tank/p@r']);
    await conforming(ws, 'pool.snapshot.release', ['tank/p@r', { recursive: true }]);
    expect(await refs()).toEqual([
      ['tank/p@r', '0'],
      ['tank/p/c@r', '0'],
    ]);
  });

  it('invalid arguments: a missing snapshot (py-libzfs get_snapshot), an unknown option -32602, SNAPSHOT_WRITE needed', async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(errorOf(await ws.call('pool.snapshot.hold', ['tank@nope']))).toEqual(
      efault('Failed to hold snapshot: Snapshot tank@nope not found'),
    );
    expect(errorOf(await ws.call('pool.snapshot.release', ['tank@nope']))).toEqual(
      efault('Failed to release snapshot: Snapshot tank@nope not found'),
    );
    expect((await ws.call('pool.snapshot.hold', ['tank@x', { force: true }])).error).toMatchObject({
      code: -32602,
      data: { extra: [['options.force', 'Extra inputs are not permitted', 22]] },
    });
    const { key } = await createUserWithKey(server.testAppliance, 'snapread', { privilegeRoles: ['SNAPSHOT_READ'] });
    expect(
      (await (await loggedInWs(server.rpcUrl, key)).call('pool.snapshot.hold', ['tank@x'])).error?.data,
    ).toMatchObject({ errname: 'EACCES' });
  });
});

describe('pool.snapshot.clone (MW/plugins/pool_/snapshot.py:22-25, zfs_/snapshot_actions.py:14-37)', () => {
  it("a new dataset with the snapshot's files, not the files written since; true as the answer", async () => {
    const { ws } = await adminSession();
    await ws.result('pool.dataset.create', [{ name: 'tank/src' }]);
    await ws.result('filesystem.mkdir', [{ path: '/mnt/tank/src/kept' }]);
    await ws.result('pool.snapshot.create', [{ dataset: 'tank/src', name: 'before' }]);
    await ws.result('filesystem.mkdir', [{ path: '/mnt/tank/src/later' }]);
    expect(
      await conforming(ws, 'pool.snapshot.clone', [
        { snapshot: 'tank/src@before', dataset_dst: 'tank/copy', dataset_properties: { 'org.example:why': 'test' } },
      ]),
    ).toBe(true);
    const [copy] = await ws.result<Record<string, any>[]>('pool.dataset.query', [[['id', '=', 'tank/copy']]]);
    expect(copy).toMatchObject({ id: 'tank/copy', type: 'FILESYSTEM', mountpoint: '/mnt/tank/copy' });
    const names = (await ws.result<{ name: string }[]>('filesystem.listdir', ['/mnt/tank/copy'])).map((e) => e.name);
    expect(names).toEqual(['kept']);
  });

  it("refusals in libzfs's words after 'Failed to clone snapshot: ' (EFAULT); a missing field -32602; SNAPSHOT_WRITE and DATASET_WRITE", async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    await ws.result('pool.snapshot.create', [{ dataset: 'tank', name: 's' }]);
    const clone = (dataset_dst: string, snapshot = 'tank@s') =>
      ws.call('pool.snapshot.clone', [{ snapshot, dataset_dst }]);
    expect(errorOf(await clone('tank/x', 'tank@nope'))).toEqual(
      efault('Failed to clone snapshot: Snapshot tank@nope not found'),
    );
    expect(errorOf(await clone('tank/no/such'))).toEqual(
      efault("Failed to clone snapshot: cannot create 'tank/no/such': parent does not exist"),
    );
    await ws.result('pool.dataset.create', [{ name: 'tank/taken' }]);
    expect(errorOf(await clone('tank/taken'))).toEqual(
      efault("Failed to clone snapshot: cannot create 'tank/taken': dataset already exists"),
    );
    expect((await ws.call('pool.snapshot.clone', [{ snapshot: 'tank@s' }])).error).toMatchObject({
      code: -32602,
      data: { extra: [['data.dataset_dst', 'Field required', 22]] },
    });
    const { key } = await createUserWithKey(server.testAppliance, 'snaponly', { privilegeRoles: ['SNAPSHOT_READ'] });
    expect(
      (
        await (
          await loggedInWs(server.rpcUrl, key)
        ).call('pool.snapshot.clone', [{ snapshot: 'tank@s', dataset_dst: 'tank/y' }])
      ).error?.data,
    ).toMatchObject({ errname: 'EACCES' });
  });
});
