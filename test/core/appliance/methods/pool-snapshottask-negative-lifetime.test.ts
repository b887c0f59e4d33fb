/**
 * A negative `lifetime_value`: the model takes any int (MW/api/v25_10_1/pool_snapshottask.py:34),
 * but the middleware hands zettarepl `PT-3600S` (MW/plugins/zettarepl.py:64-88), which
 * isodate.parse_duration refuses; zettarepl drops the task from its definition with a
 * PeriodicSnapshotTaskDefinitionError (zettarepl/definition/definition.py:32-38, 81-85 at
 * release/25.10.1), which the middleware reports as the task's state (MW/plugins/zettarepl.py:899-907,
 * MW/plugins/zettarepl_/state.py:54-59). So the task never runs, its run finds no such task in
 * zettarepl (MW/plugins/zettarepl.py:250-259), and no retention is its: its snapshots stay.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { SnapshotTaskScheduler } from '../../../../src/core/appliance/snapshot-tasks/scheduler.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };
const REFUSED = "When parsing periodic snapshot task task_1: Unrecognised ISO 8601 date format: ''.";

const snapshotIds = async (t: TestAppliance) =>
  (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [], { select: ['id'] })).map((s) => s.id);

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`a snapshot task with a negative lifetime on ${release}`, () => {
    it('is stored, reads ERROR, never runs, and destroys nothing; a lifetime made positive again reads PENDING', async () => {
      const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
      t.appliance.now = () => AT;
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'auto-2024-01-01_00-00' });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'auto-2024-01-02_00-00' });
      const created = await t.call<Entry>(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        lifetime_value: -1,
        lifetime_unit: 'HOUR',
        schedule: EVERY_MINUTE,
      });
      expect(created.lifetime_value).toBe(-1);
      expect(created.state).toEqual({ state: 'ERROR', datetime: { $date: AT }, error: REFUSED });
      expect(await t.call(t.admin, 'pool.snapshottask.run', 1)).toBeNull();
      // Another task's tick runs retention, in which the refused task owns nothing.
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/data',
        naming_schema: 'other-%Y-%m-%d_%H-%M',
        schedule: EVERY_MINUTE,
      });
      await new SnapshotTaskScheduler(t.appliance).tick(AT + 60_000);
      expect(await snapshotIds(t)).toEqual([
        'tank/data@auto-2024-01-01_00-00',
        'tank/data@auto-2024-01-02_00-00',
        'tank/data@other-2024-01-05_03-08',
      ]);
      const [task] = await t.call<Entry[]>(t.admin, 'pool.snapshottask.query');
      expect((task!.state as Entry).error).toBe(REFUSED);
      const fixed = await t.call<Entry>(t.admin, 'pool.snapshottask.update', 1, { lifetime_value: 1 });
      expect(fixed.state).toEqual({ state: 'PENDING' });
    });

    it('its retention change is isodate’s refusal, from the same parse (MW/plugins/zettarepl_/snapshot_removal_date.py:60-64 at TS-25.10.1), and an update to it with fixate_removal_date fails', async () => {
      const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
      await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data' });
      const refusal = async (method: string, ...params: unknown[]) => {
        const err = await t.callError(t.admin, method, ...params);
        return [err.code, err.data?.reason, err.data?.trace?.class, err.data?.trace?.repr];
      };
      const ISO = [
        -32001,
        "Unrecognised ISO 8601 date format: ''",
        'ISO8601Error',
        `ISO8601Error("Unrecognised ISO 8601 date format: ''")`,
      ];
      expect(await refusal('pool.snapshottask.update_will_change_retention_for', 1, { lifetime_value: -1 })).toEqual(
        ISO,
      );
      expect(await refusal('pool.snapshottask.update', 1, { lifetime_value: -1, fixate_removal_date: true })).toEqual(
        ISO,
      );
      expect(await t.call<Entry>(t.admin, 'pool.snapshottask.get_instance', 1)).toMatchObject({ lifetime_value: 2 });
      await t.call(t.admin, 'pool.snapshottask.update', 1, { lifetime_value: -1 });
      expect(await refusal('pool.snapshottask.delete_will_change_retention_for', 1)).toEqual(ISO);
    });
  });
}
