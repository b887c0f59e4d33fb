/**
 * The snapshots of a task whose dataset is gone (a disabled task outlives `pool.dataset.delete`,
 * MW/plugins/snapshot.py:359-382): `zettarepl.periodic_snapshot_task_snapshots` lists them with
 * `zfs list` (zettarepl/snapshot/list.py:16-23). On 25.10.1 zfs's refusal is the ExecException
 * the caller gets (MW/plugins/zettarepl_/snapshot_removal_date.py:60-61 at TS-25.10.1, its text
 * zettarepl/transport/interface.py:64-72), and an update or delete with `fixate_removal_date`
 * fails with it; 26.0 raises CallError ENOENT there (stable/26 snapshot_removal_date.py:63-67),
 * which update/delete_will_change_retention_for answer as `{}` for the task's own dataset
 * (stable/26 MW/plugins/snapshot_/task_retention.py:38-45, 69-76), but not for the dataset an
 * update would move the task to.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const GONE = "cannot open 'tank/data/a': dataset does not exist";

/** Task 1, disabled, on tank/data/a, which is then deleted; task 2 on tank/data/b. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  for (const name of ['tank/data', 'tank/data/a', 'tank/data/b'])
    await t.call(t.admin, 'pool.dataset.create', { name });
  t.appliance.now = () => AT;
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data/a', enabled: false });
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data/b' });
  await t.call(t.admin, 'pool.dataset.delete', 'tank/data/a');
  return t;
}

function execException(err: RpcError, text: string) {
  expect(err.code).toBe(-32001);
  expect(err.data?.reason).toBe(text);
  expect(err.data?.trace?.class).toBe('ExecException');
  expect(err.data?.trace?.repr).toBe(`ExecException(1, "${text}\\n")`);
}

describe('pool.snapshottask of a task whose dataset is gone, on 25.10.1', () => {
  it('delete_will_change_retention_for and a changing update_will_change_retention_for fail with zfs’s words', async () => {
    const t = await setup('25.10.1');
    execException(await t.callError(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 1), GONE);
    execException(
      await t.callError(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, { lifetime_value: 3 }),
      GONE,
    );
    // `old != new` is false: nothing is listed (task_retention.py:29).
    expect(await t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, {})).toEqual({});
  });

  it('delete and update with fixate_removal_date fail and change nothing; without it they go through', async () => {
    const t = await setup('25.10.1');
    execException(await t.callError(t.admin, 'pool.snapshottask.delete', 1, { fixate_removal_date: true }), GONE);
    execException(
      await t.callError(t.admin, 'pool.snapshottask.update', 1, { dataset: 'tank/data/b', fixate_removal_date: true }),
      GONE,
    );
    expect(await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', 1)).toMatchObject({ dataset: 'tank/data/a' });
    // The whole task is validated before anything is listed (MW/plugins/snapshot.py:198-224 at TS-25.10.1).
    const invalid = await t.callError(t.admin, 'pool.snapshottask.update', 1, {
      lifetime_value: 3,
      fixate_removal_date: true,
    });
    expect(invalid.data?.reason).toBe('[EINVAL] periodic_snapshot_update.dataset: Dataset not found\n');
    expect(await t.call(t.admin, 'pool.snapshottask.delete', 1)).toBe(true);
  });

  it('moving a task to a dataset that does not exist is zfs’s refusal in update_will_change_retention_for', async () => {
    const t = await setup('25.10.1');
    execException(
      await t.callError(t.admin, 'pool.snapshottask.update_will_change_retention_for', 2, { dataset: 'tank/nope' }),
      "cannot open 'tank/nope': dataset does not exist",
    );
  });
});

describe('pool.snapshottask of a task whose dataset is gone, on 26.0', () => {
  it('update/delete_will_change_retention_for answer {}; update and delete with fixate_removal_date go through', async () => {
    const t = await setup('26.0');
    expect(await t.call(t.admin, 'pool.snapshottask.delete_will_change_retention_for', 1)).toEqual({});
    expect(
      await t.call(t.admin, 'pool.snapshottask.update_will_change_retention_for', 1, { lifetime_value: 3 }),
    ).toEqual({});
    const moved = await t.call<Entry>(t.admin, 'pool.snapshottask.update', 1, {
      dataset: 'tank/data/b',
      fixate_removal_date: false,
    });
    expect(moved.dataset).toBe('tank/data/b');
    await t.call(t.admin, 'pool.dataset.delete', 'tank/data/b');
    expect(await t.call(t.admin, 'pool.snapshottask.delete', 1, { fixate_removal_date: true })).toBe(true);
  });

  it('moving a task to a dataset that does not exist is CallError ENOENT in update_will_change_retention_for', async () => {
    const t = await setup('26.0');
    const err = await t.callError(t.admin, 'pool.snapshottask.update_will_change_retention_for', 2, {
      dataset: 'tank/nope',
    });
    expect(err.code).toBe(-32001);
    expect(err.data?.reason).toBe("[ENOENT] Dataset 'tank/nope' does not exist");
  });
});
