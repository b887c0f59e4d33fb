/**
 * 26.0's pool.snapshot.hold, release and delete, which go through zfs.resource.snapshot
 * (MW/plugins/pool_/snapshot.py:66-90, 373-392 at TS-26.0.0-BETA.3, the same on stable/26): the
 * exceptions of MW/plugins/zfs/snapshot_hold_release_impl.py and MW/plugins/zfs/exceptions.py as
 * they are, and zfs.resource.snapshot.destroy's ValidationErrors (MW/plugins/zfs/snapshot_crud.py:
 * 239-306, destroy_impl.py), where 25.10.1 raises `Failed to hold snapshot: …` CallErrors.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

async function withSnapshots(): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS['truenas-26.0'], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b' });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a', name: 's', recursive: true });
  return t;
}

const failure = async (t: TestAppliance, method: string, ...params: unknown[]) => {
  const e = (await t.callError(t.admin, method, ...params)).toJSON();
  const data = e.data as { errname: string; reason: string; extra: unknown; trace: { class: string; repr: string } };
  return {
    code: e.code,
    errname: data.errname,
    reason: data.reason,
    extra: data.extra,
    class: data.trace.class,
    repr: data.trace.repr,
  };
};

describe('pool.snapshot.hold / release / delete on 26.0', () => {
  it('a missing snapshot is ZFSPathNotFoundException, a path without @ ZFSPathNotASnapshotException (snapshot_hold_release_impl.py:89-103, exceptions.py)', async () => {
    const t = await withSnapshots();
    for (const method of ['pool.snapshot.hold', 'pool.snapshot.release'])
      for (const recursive of [false, true])
        expect(await failure(t, method, 'tank/a@nope', { recursive })).toMatchObject({
          reason: "'tank/a@nope' not found",
          class: 'ZFSPathNotFoundException',
          repr: `ZFSPathNotFoundException("'tank/a@nope' not found")`,
        });
    expect(await failure(t, 'pool.snapshot.hold', 'tank/a')).toMatchObject({
      reason: "'tank/a' must be a snapshot path (containing '@')",
      class: 'ZFSPathNotASnapshotException',
    });
  });

  it("a second hold is lzc_hold's EEXIST for each held snapshot, as ZFSCoreException (lzc.create_holds)", async () => {
    const t = await withSnapshots();
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/a@s', { recursive: true });
    expect(await failure(t, 'pool.snapshot.hold', 'tank/a/b@s')).toMatchObject({
      reason: "('lzc_hold() failed', (('tank/a/b@s', 17),))",
      class: 'ZFSCoreException',
      repr: "ZFSCoreException('lzc_hold() failed', (('tank/a/b@s', 17),))",
    });
    expect((await failure(t, 'pool.snapshot.hold', 'tank/a@s', { recursive: true })).reason).toBe(
      "('lzc_hold() failed', (('tank/a@s', 17), ('tank/a/b@s', 17)))",
    );
  });

  it('delete: no @ is a ValidationError, missing InstanceNotFound, held the holds named with EBUSY (pool_/snapshot.py:374-386, destroy_impl.py:25-28)', async () => {
    const t = await withSnapshots();
    expect(await failure(t, 'pool.snapshot.delete', 'tank/a')).toMatchObject({
      code: -32602,
      reason: "[EINVAL] pool.snapshot.delete: Invalid snapshot name: 'tank/a'\n",
      extra: [['pool.snapshot.delete', "Invalid snapshot name: 'tank/a'", 22]],
    });
    expect(await failure(t, 'pool.snapshot.delete', 'tank/a@nope')).toMatchObject({
      reason: "[ENOENT] None: 'tank/a@nope' not found",
      class: 'InstanceNotFound',
    });
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/a@s', { recursive: true });
    expect(await failure(t, 'pool.snapshot.delete', 'tank/a/b@s')).toMatchObject({
      reason: "[EBUSY] zfs.resource.snapshot.destroy: 'tank/a/b@s' has the following holds: truenas\n",
      extra: [['zfs.resource.snapshot.destroy', "'tank/a/b@s' has the following holds: truenas", 16]],
    });
  });

  it('release lets go of every tag of each snapshot, children included; a recursive delete releases what it meets and destroys it (destroy_impl.py:117-120)', async () => {
    const t = await withSnapshots();
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/a/b@s');
    // 25.10.1 releases only the tags the named snapshot holds; 26.0 each snapshot's own (:148-160).
    expect(await t.call(t.admin, 'pool.snapshot.release', 'tank/a@s', { recursive: true })).toBeNull();
    const holds = await t.call<{ id: string; holds: object }[]>(t.admin, 'pool.snapshot.query', [], {
      extra: { holds: true },
    });
    expect(holds.map((s) => [s.id, s.holds])).toEqual([
      ['tank/a@s', {}],
      ['tank/a/b@s', {}],
    ]);
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/a@s', { recursive: true });
    expect(await t.call(t.admin, 'pool.snapshot.delete', 'tank/a@s', { recursive: true })).toBe(true);
    expect(await t.call(t.admin, 'pool.snapshot.query', [])).toEqual([]);
  });
});

/*
 * 26.0's clone and rollback call zfs.resource.snapshot's private clone_impl and rollback_impl
 * (MW/plugins/pool_/snapshot.py:46-66 at TS-26.0.0-BETA.3, the same on stable/26), whose exceptions
 * reach the client as they are (MW/plugins/zfs/rename_promote_clone_impl.py:21-52,
 * MW/plugins/zfs/snapshot_rollback_impl.py:59-143).
 */
describe('pool.snapshot.clone / rollback on 26.0', () => {
  const clone = (t: TestAppliance, snapshot: string, dataset_dst: string) =>
    failure(t, 'pool.snapshot.clone', { snapshot, dataset_dst });

  it('clone: a missing snapshot, a dataset given as the snapshot, a target that exists (rename_promote_clone_impl.py:35-47)', async () => {
    const t = await withSnapshots();
    expect(await clone(t, 'tank/a@nope', 'tank/c')).toMatchObject({
      code: -32001,
      reason: "'tank/a@nope' not found",
      class: 'ZFSPathNotFoundException',
      repr: `ZFSPathNotFoundException("'tank/a@nope' not found")`,
    });
    expect(await clone(t, 'tank/a', 'tank/c')).toMatchObject({
      reason: "'tank/a' must be a snapshot path (containing '@')",
      class: 'ZFSPathNotASnapshotException',
    });
    expect(await clone(t, 'tank/a@s', 'tank/a/b')).toMatchObject({
      reason: "'tank/a/b' already exists",
      class: 'ZFSPathAlreadyExistsException',
      repr: `ZFSPathAlreadyExistsException("'tank/a/b' already exists")`,
    });
  });

  it('clone, rollback, hold and release refuse an internal path by its name first: a boot pool, ix-apps, ix-applications or .system under a pool (has_internal_path, MW/plugins/zfs/utils.py:44-61; snapshot_crud.py:408-414, :757-761, :580-584, :693-697 at TS-26.0.0-BETA.3)', async () => {
    const t = await withSnapshots();
    const protectedPath = (method: string, path: string) => ({
      // A single ValidationError: errno 22 outside, its own inside (MW/api/base/server/ws_handler/rpc.py:365-368).
      code: -32602,
      errname: 'EINVAL',
      reason: `[EACCES] zfs.resource.snapshot.${method}: '${path}' is a protected path.`,
      extra: [[`zfs.resource.snapshot.${method}`, `'${path}' is a protected path.`, 13]],
      class: 'ValidationError',
      repr: `ValidationError('zfs.resource.snapshot.${method}', "'${path}' is a protected path.", 13)`,
    });
    // The source's dataset part, before the snapshot is looked for; then the target, whole.
    expect(await clone(t, 'tank/ix-apps@s', 'tank/c')).toMatchObject(protectedPath('clone', 'tank/ix-apps@s'));
    expect(await clone(t, 'boot-pool/ROOT@s', 'tank/c')).toMatchObject(protectedPath('clone', 'boot-pool/ROOT@s'));
    expect(await clone(t, 'tank/a@s', 'tank/.system')).toMatchObject(protectedPath('clone', 'tank/.system'));
    expect(await clone(t, 'tank/a@s', 'freenas-boot/c')).toMatchObject(protectedPath('clone', 'freenas-boot/c'));
    // Deeper than right under a pool is no internal path: the usual refusal.
    expect((await clone(t, 'tank/a/ix-apps@s', 'tank/c')).class).toBe('ZFSPathNotFoundException');
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/ix-applications@s')).toMatchObject(
      protectedPath('rollback', 'tank/ix-applications@s'),
    );
    expect(await failure(t, 'pool.snapshot.rollback', 'boot-pool')).toMatchObject(
      protectedPath('rollback', 'boot-pool'),
    );
    expect(await failure(t, 'pool.snapshot.hold', 'tank/.system@s')).toMatchObject(
      protectedPath('hold', 'tank/.system@s'),
    );
    expect(await failure(t, 'pool.snapshot.release', 'tank/ix-apps@s')).toMatchObject(
      protectedPath('release', 'tank/ix-apps@s'),
    );
  });

  it('delete and create refuse an internal path too, before the snapshot or dataset is looked for (snapshot_crud.py:215-222 destroy_impl, :488-493 create_impl at TS-26.0.0-BETA.3; do_delete passes on all but ENOENT, MW/plugins/pool_/snapshot.py:377-386)', async () => {
    const t = await withSnapshots();
    const protectedPath = (method: string, path: string) => ({
      code: -32602,
      reason: `[EACCES] zfs.resource.snapshot.${method}: '${path}' is a protected path.`,
      extra: [[`zfs.resource.snapshot.${method}`, `'${path}' is a protected path.`, 13]],
      class: 'ValidationError',
    });
    expect(await failure(t, 'pool.snapshot.delete', 'tank/.system@s')).toMatchObject(
      protectedPath('destroy', 'tank/.system@s'),
    );
    expect(await failure(t, 'pool.snapshot.delete', 'boot-pool/ROOT@s')).toMatchObject(
      protectedPath('destroy', 'boot-pool/ROOT@s'),
    );
    expect(await failure(t, 'pool.snapshot.create', { dataset: 'tank/ix-apps', name: 's2' })).toMatchObject(
      protectedPath('create', 'tank/ix-apps'),
    );
    // Deeper than right under a pool is no internal path: the usual refusal of a missing snapshot.
    expect((await failure(t, 'pool.snapshot.delete', 'tank/a/.system@s')).class).not.toBe('ValidationError');
  });

  it("clone into a missing parent or pool: libzfs zfs_clone's check_parents as truenas_pylibzfs's ZFSException (py_zfs_snapshot.c:211-221, error.c:137-142)", async () => {
    const t = await withSnapshots();
    expect(await clone(t, 'tank/a@s', 'tank/no/such')).toMatchObject({
      reason: "[EZFS_NOENT]: zfs_clone() failed - cannot create 'tank/no/such': parent does not exist",
      class: 'ZFSException',
      repr: `ZFSException("[EZFS_NOENT]: zfs_clone() failed - cannot create 'tank/no/such': parent does not exist")`,
    });
    expect((await clone(t, 'tank/a@s', 'other/c')).reason).toBe(
      "[EZFS_NOENT]: zfs_clone() failed - cannot create 'other/c': no such pool 'other'",
    );
    expect((await clone(t, 'tank/a@s', 'other')).reason).toBe(
      "[EZFS_INVALIDNAME]: zfs_clone() failed - cannot create 'other': missing dataset name",
    );
    expect(await t.call(t.admin, 'pool.snapshot.clone', { snapshot: 'tank/a@s', dataset_dst: 'tank/c' })).toBe(true);
  });

  it('rollback: no @, a missing snapshot, later snapshots without recursive as the ValueError listing them (snapshot_rollback_impl.py:87-98, 135-141)', async () => {
    const t = await withSnapshots();
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a', name: 't' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a', name: 'u' });
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/a')).toMatchObject({
      reason: "'tank/a' must be a snapshot path (containing '@')",
      class: 'ZFSPathNotASnapshotException',
    });
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/a@nope')).toMatchObject({
      code: -32001,
      reason: "'tank/a@nope' not found",
      class: 'ZFSPathNotFoundException',
    });
    const text =
      'Cannot rollback: more recent snapshots or bookmarks exist. Please pass `recursive: true` to delete the ' +
      'following snapshots and bookmarks recursively:\n  tank/a@t\n  tank/a@u';
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/a@s')).toMatchObject({
      reason: text,
      class: 'ValueError',
      repr: `ValueError('${text.replace(/\n/g, '\\n')}')`,
    });
    expect(await t.call(t.admin, 'pool.snapshot.rollback', 'tank/a@s', { recursive: true })).toBeNull();
    const left = await t.call<{ id: string }[]>(t.admin, 'pool.snapshot.query', []);
    expect(left.map((s) => s.id)).toEqual(['tank/a@s', 'tank/a/b@s']);
  });

  it('rollback recursive_rollback: a child without the snapshot fails after the parent is rolled back (:114-125); a held later snapshot stops recursive (:185-205)', async () => {
    const t = await withSnapshots();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/c' });
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/a@s', { recursive_rollback: true })).toMatchObject({
      reason: "'tank/a/c@s' not found",
      class: 'ZFSPathNotFoundException',
    });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a/b', name: 't' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a/b', name: 'u' });
    await t.call(t.admin, 'pool.snapshot.hold', 'tank/a/b@t');
    expect(await failure(t, 'pool.snapshot.rollback', 'tank/a/b@s', { recursive: true })).toMatchObject({
      reason: "('lzc_destroy_snaps() failed', (('tank/a/b@t', 16),))",
      class: 'ZFSCoreException',
    });
    // The newer one went before the held one stopped it.
    const left = await t.call<{ id: string }[]>(t.admin, 'pool.snapshot.query', []);
    expect(left.map((s) => s.id)).toEqual(['tank/a@s', 'tank/a/b@s', 'tank/a/b@t']);
  });
});
