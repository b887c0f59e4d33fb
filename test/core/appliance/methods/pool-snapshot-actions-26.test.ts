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
