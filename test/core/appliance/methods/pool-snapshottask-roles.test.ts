/**
 * pool.snapshottask.* under a privilege holding only SNAPSHOT_TASK_READ, or only SNAPSHOT_TASK_WRITE
 * (MW/role.py:198-199 at TS-25.10.1, stable/26 :214-215: WRITE includes READ). role_prefix
 * SNAPSHOT_TASK gives query/get_instance READ and create/update/delete WRITE (MW/plugins/snapshot.py:50);
 * max_count and max_total_count ask READ (:301, :311), run WRITE (:322), the will_change_retention_for
 * pair READ (MW/plugins/snapshot_/task_retention.py:16-18, 39-41).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

const READS: [string, unknown[]][] = [
  ['pool.snapshottask.query', []],
  ['pool.snapshottask.get_instance', [1]],
  ['pool.snapshottask.max_count', []],
  ['pool.snapshottask.max_total_count', []],
  ['pool.snapshottask.update_will_change_retention_for', [1, { lifetime_value: 3 }]],
  ['pool.snapshottask.delete_will_change_retention_for', [1]],
];
const WRITES: [string, unknown[]][] = [
  ['pool.snapshottask.run', [1]],
  ['pool.snapshottask.update', [1, { lifetime_value: 3 }]],
  ['pool.snapshottask.create', [{ dataset: 'tank/data' }]],
  ['pool.snapshottask.delete', [1]],
];

/** An appliance of `release` with task 1 on tank/data, and a session of a user whose privilege holds only `role`. */
async function sessionWith(release: '25.10.1' | '26.0', role: string) {
  const t: TestAppliance = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data' });
  const { key } = await createUserWithKey(t, 'someone', { privilegeRoles: [role] });
  const { session } = await t.login(key);
  return { t, session };
}

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`pool.snapshottask roles on ${release}`, () => {
    it('SNAPSHOT_TASK_READ alone reads tasks, counts and retention changes, and may not run, create, update or delete', async () => {
      const { t, session } = await sessionWith(release, 'SNAPSHOT_TASK_READ');
      for (const [method, params] of READS) await t.call(session, method, ...params);
      for (const [method, params] of WRITES)
        expect([method, (await t.callError(session, method, ...params)).data?.reason]).toEqual([
          method,
          '[EACCES] Not authorized',
        ]);
      expect(await t.call(t.admin, 'pool.snapshot.query')).toEqual([]);
    });

    it('SNAPSHOT_TASK_WRITE alone does all of it, itself including READ', async () => {
      const { t, session } = await sessionWith(release, 'SNAPSHOT_TASK_WRITE');
      for (const [method, params] of [...READS, ...WRITES]) await t.call(session, method, ...params);
    });
  });
}
