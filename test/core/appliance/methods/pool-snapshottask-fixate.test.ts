/**
 * `fixate_removal_date` writes each snapshot a task change leaves its removal date, the property
 * `org.truenas:destroy_at_<host id's first 8>` (MW/plugins/snapshot_/removal_date.py:9-20,
 * MW/plugins/zettarepl_/snapshot_removal_date.py:80-110 at TS-25.10.1), and local retention keeps
 * such a snapshot until that date, then destroys it (zettarepl/zettarepl.py:366-378, 414-415;
 * zettarepl/retention/snapshot_removal_date_snapshot_owner.py:14-33 at release/25.10.1).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { listSnapshots } from '../../../../src/core/store/snapshots.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Snapshot = { id: string; properties: Record<string, { value: string; source: string }> };

// 11:07:30 UTC is 03:07 on the appliance's clock (America/Los_Angeles, PST): the name's time.
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const MINUTE = 60_000;
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };

/** Task 1 on tank/data (a one-hour lifetime, every minute) has taken tank/data@auto-2024-01-05_03-07; task 2 runs on tank/other. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  for (const name of ['tank/data', 'tank/other']) await t.call(t.admin, 'pool.dataset.create', { name });
  t.appliance.now = () => AT;
  for (const dataset of ['tank/data', 'tank/other'])
    await t.call(t.admin, 'pool.snapshottask.create', {
      dataset,
      schedule: EVERY_MINUTE,
      lifetime_value: 1,
      lifetime_unit: 'HOUR',
    });
  await t.call(t.admin, 'pool.snapshottask.run', 1);
  return t;
}

async function snapshotsOf(t: TestAppliance, dataset: string): Promise<Snapshot[]> {
  return t.call<Snapshot[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', dataset]]);
}

async function property(t: TestAppliance): Promise<string> {
  const hostId = await t.call<string>(t.admin, 'system.host_id');
  return `org.truenas:destroy_at_${hostId.slice(0, 8)}`;
}

/** Runs task 2 at `at`: its local retention is the one that looks at removal dates. */
async function retentionAt(t: TestAppliance, at: number): Promise<void> {
  t.appliance.now = () => at;
  await t.call(t.admin, 'pool.snapshottask.run', 2);
}

describe('system.host_id', () => {
  it('is a SHA-256 in hex that stays the same across calls and restarts', async () => {
    const t = await openTestAppliance();
    const first = await t.call<string>(t.admin, 'system.host_id');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await t.call(t.admin, 'system.host_id')).toBe(first);
    const again = await t.reopen();
    expect(await again.call(again.admin, 'system.host_id')).toBe(first);
  });
});

describe('pool.snapshottask.delete with fixate_removal_date (25.10.1)', () => {
  it('gives the task’s snapshot the date its lifetime ends, as a naive ISO wall clock', async () => {
    const t = await setup('25.10.1');
    expect(await t.call(t.admin, 'pool.snapshottask.delete', 1, { fixate_removal_date: true })).toBe(true);
    const [snap] = await snapshotsOf(t, 'tank/data');
    expect(snap?.id).toBe('tank/data@auto-2024-01-05_03-07');
    expect(snap?.properties[await property(t)]).toMatchObject({ value: '2024-01-05T04:07:00', source: 'LOCAL' });
  });

  it('without it the snapshot gets no date, and no task’s retention ever removes it', async () => {
    const t = await setup('25.10.1');
    await t.call(t.admin, 'pool.snapshottask.delete', 1);
    const [snap] = await snapshotsOf(t, 'tank/data');
    expect(Object.keys(snap?.properties ?? {}).filter((k) => k.startsWith('org.truenas:destroy_at_'))).toEqual([]);
    await retentionAt(t, AT + 180 * MINUTE);
    expect((await snapshotsOf(t, 'tank/data')).map((s) => s.id)).toEqual(['tank/data@auto-2024-01-05_03-07']);
  });

  it('retention keeps the orphaned snapshot until its date, then destroys it', async () => {
    const t = await setup('25.10.1');
    await t.call(t.admin, 'pool.snapshottask.delete', 1, { fixate_removal_date: true });
    await retentionAt(t, AT + 30 * MINUTE);
    expect((await snapshotsOf(t, 'tank/data')).map((s) => s.id)).toEqual(['tank/data@auto-2024-01-05_03-07']);
    await retentionAt(t, AT + 61 * MINUTE);
    expect(await snapshotsOf(t, 'tank/data')).toEqual([]);
  });
});

describe('pool.snapshottask.update with fixate_removal_date', () => {
  it('25.10.1: moving the task away fixes the dates of the snapshots it leaves, by the old lifetime', async () => {
    const t = await setup('25.10.1');
    await t.call(t.admin, 'pool.snapshottask.update', 1, {
      dataset: 'tank/other',
      lifetime_value: 5,
      fixate_removal_date: true,
    });
    const [snap] = await snapshotsOf(t, 'tank/data');
    expect(snap?.properties[await property(t)]?.value).toBe('2024-01-05T04:07:00');
  });

  it('25.10.1: false fixes nothing', async () => {
    const t = await setup('25.10.1');
    await t.call(t.admin, 'pool.snapshottask.update', 1, { dataset: 'tank/other', fixate_removal_date: false });
    const [snap] = await snapshotsOf(t, 'tank/data');
    expect(snap?.properties[await property(t)]).toBeUndefined();
  });

  it('26.0: given as false it fixes them too (stable/26 MW/plugins/snapshot.py:174-196)', async () => {
    const t = await setup('26.0');
    await t.call(t.admin, 'pool.snapshottask.update', 1, { dataset: 'tank/other', fixate_removal_date: false });
    // 26.0's pool.snapshot.query shows no user property (MW/plugins/zfs/property_management.py:186-194
    // at TS-26.0.0-BETA.3): the snapshot's stored ones are read.
    const [snap] = t.appliance.store.read(() => listSnapshots(t.appliance.store.db));
    expect(snap?.user_properties[await property(t)]).toBe('2024-01-05T04:07:00');
  });
});

describe('pool.snapshot.query with extra.retention', () => {
  const retentionOf = async (t: TestAppliance, id: string) =>
    (
      await t.call<{ retention: unknown }[]>(t.admin, 'pool.snapshot.query', [['id', '=', id]], {
        extra: { retention: true },
      })
    )[0]?.retention;
  // 04:07 on the appliance's clock (PST) is 12:07 UTC.
  const ENDS = { $date: Date.UTC(2024, 0, 5, 12, 7) };

  it('names the task whose lifetime ends the snapshot, as an instant', async () => {
    const t = await setup('25.10.1');
    expect(await retentionOf(t, 'tank/data@auto-2024-01-05_03-07')).toEqual({
      datetime: ENDS,
      source: 'periodic_snapshot_task',
      periodic_snapshot_task_id: 1,
    });
  });

  it('once the task is deleted with fixate_removal_date, the property', async () => {
    const t = await setup('26.0');
    await t.call(t.admin, 'pool.snapshottask.delete', 1, { fixate_removal_date: true });
    expect(await retentionOf(t, 'tank/data@auto-2024-01-05_03-07')).toEqual({ datetime: ENDS, source: 'property' });
  });

  it('a property later than the task’s date wins; a snapshot with neither has null', async () => {
    const t = await setup('25.10.1');
    const later = '2030-01-01T00:00:00';
    await t.call(t.admin, 'pool.snapshot.create', {
      dataset: 'tank/data',
      name: 'auto-2024-01-05_03-08',
      properties: { [await property(t)]: later },
    });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'manual' });
    // 2030-01-01 00:00 PST is 08:00 UTC.
    expect(await retentionOf(t, 'tank/data@auto-2024-01-05_03-08')).toEqual({
      datetime: { $date: Date.UTC(2030, 0, 1, 8, 0) },
      source: 'property',
    });
    expect(await retentionOf(t, 'tank/data@manual')).toBeNull();
  });
});

describe('pool.snapshot.query with extra.retention and neither an id filter nor a limit', () => {
  const unbounded = (t: TestAppliance) =>
    t.call<{ id: string; retention: unknown }[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', 'tank/data']], {
      extra: { retention: true },
      select: ['id', 'retention'],
    });

  it('is refused by 25.10.1 (MW/plugins/zfs_/snapshot.py:104-106 at TS-25.10.1)', async () => {
    const t = await setup('25.10.1');
    await expect(unbounded(t)).rejects.toMatchObject({
      data: { errname: 'EINVAL', reason: '[EINVAL] `id` or `limit` is required if `retention` is requested' },
    });
  });

  it('is answered by 26.0, which no longer asks for either (stable/26 MW/plugins/pool_/snapshot.py:243-290)', async () => {
    const t = await setup('26.0');
    expect(await unbounded(t)).toEqual([
      {
        id: 'tank/data@auto-2024-01-05_03-07',
        retention: {
          datetime: { $date: Date.UTC(2024, 0, 5, 12, 7) },
          source: 'periodic_snapshot_task',
          periodic_snapshot_task_id: 1,
        },
      },
    ]);
  });
});

describe('pool.snapshot.query with extra.retention and a removal date with an offset', () => {
  const query = (t: TestAppliance, id: string) =>
    t.call<{ retention: unknown }[]>(t.admin, 'pool.snapshot.query', [['id', '=', id]], {
      extra: { retention: true },
      select: ['retention'],
    });

  for (const release of ['25.10.1', '26.0'] as const) {
    it(`${release}: alone, it is read as the appliance's wall clock, the offset dropped (.replace(tzinfo=tzlocal()))`, async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshot.create', {
        dataset: 'tank/data',
        name: 'manual',
        properties: { [await property(t)]: '2030-01-01T00:00:00+05:00' },
      });
      // 2030-01-01 00:00 PST is 08:00 UTC.
      expect(await query(t, 'tank/data@manual')).toEqual([
        { retention: { datetime: { $date: Date.UTC(2030, 0, 1, 8, 0) }, source: 'property' } },
      ]);
    });

    it(`${release}: beside a task's date, Python cannot compare the two and the query fails with a TypeError`, async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.snapshot.create', {
        dataset: 'tank/data',
        name: 'auto-2024-01-05_03-08',
        properties: { [await property(t)]: '2030-01-01T00:00:00Z' },
      });
      await expect(query(t, 'tank/data@auto-2024-01-05_03-08')).rejects.toMatchObject({
        data: {
          reason: "can't compare offset-naive and offset-aware datetimes",
          trace: { class: 'TypeError' },
        },
      });
    });
  }
});
