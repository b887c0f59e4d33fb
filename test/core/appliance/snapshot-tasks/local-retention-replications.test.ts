/**
 * Local retention after a periodic snapshot task ran keeps what a PUSH replication has not sent yet,
 * as zettarepl's `_run_local_retention` does (zettarepl/zettarepl.py:355-414 at release/25.10.1):
 * the PUSH replications pending or running at that moment — the automatic ones without a schedule
 * bound to a task that just ran, which `_replication_tasks_for_periodic_snapshot_tasks` spawned
 * (:112-117, 194-222) — and every replication with `hold_pending_snapshots` (:361-362) own the
 * source snapshots their target lacks and the incremental base (PendingPushReplicationTaskSnapshotOwner,
 * zettarepl/replication/task/snapshot_owner.py:60-93). The replications are those in the
 * middleware's definition: enabled (MW/plugins/zettarepl.py:632), their SSH credentials found
 * (:702-713). A LOCAL target's snapshots are read from this appliance; an SSH target cannot be
 * listed by the emulator, which zettarepl takes as "remote has no snapshots" (snapshot_owner.py:96-104).
 */
import { describe, expect, it } from 'vitest';
import { runLocalReplication } from '../../../../src/core/appliance/replication/run.js';
import { SnapshotTaskScheduler } from '../../../../src/core/appliance/snapshot-tasks/scheduler.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { localPush, replicationSpec } from '../../../helpers/replication-spec.js';

type Entry = Record<string, unknown>;
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);
const HOUR = 3_600_000;
const EVERY_MINUTE = { minute: '*', hour: '*', dom: '*', month: '*', dow: '*' };

/** tank/src with snapshot task 1 (lifetime one hour); `replication` fields over a LOCAL PUSH of it to tank/dst. */
async function setup(release: '25.10.1' | '26.0', replication: Entry): Promise<TestAppliance> {
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/src' });
  await t.call(t.admin, 'pool.snapshottask.create', {
    dataset: 'tank/src',
    lifetime_value: 1,
    lifetime_unit: 'HOUR',
    schedule: EVERY_MINUTE,
  });
  await t.call(t.admin, 'replication.create', localPush(replication));
  return t;
}

/** pool.snapshottask.run of task 1 at `at`; answers the snapshots on `dataset` after its retention. */
async function runAt(t: TestAppliance, at: number, dataset = 'tank/src'): Promise<string[]> {
  t.appliance.now = () => at;
  await t.call(t.admin, 'pool.snapshottask.run', 1);
  return snapshotsOf(t, dataset);
}

async function snapshotsOf(t: TestAppliance, dataset: string): Promise<string[]> {
  const all = await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [['dataset', '=', dataset]], { select: ['id'] });
  return all.map((s) => String(s.id)).sort();
}

const replicate = (t: TestAppliance) => runLocalReplication(t.appliance, replicationSpec(), () => undefined);

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`local retention and PUSH replications on ${release}`, () => {
    it('a replication neither holding pending snapshots nor spawned by the task keeps nothing: the expired snapshot goes (zettarepl.py:358-362)', async () => {
      const t = await setup(release, {});
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual(['tank/src@auto-2024-01-05_05-07']);
    });

    it('hold_pending_snapshots keeps an expired snapshot the LOCAL target lacks; once the target has it, it goes (zettarepl.py:361-362, 385-388; snapshot_owner.py:78-93)', async () => {
      const t = await setup(release, { hold_pending_snapshots: true });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
      await replicate(t);
      expect(await snapshotsOf(t, 'tank/dst')).toEqual([
        'tank/dst@auto-2024-01-05_03-07',
        'tank/dst@auto-2024-01-05_05-07',
      ]);
      expect(await runAt(t, AT + 2 * HOUR + 60_000)).toEqual([
        'tank/src@auto-2024-01-05_05-07',
        'tank/src@auto-2024-01-05_05-08',
      ]);
    });

    it('the newest snapshot both sides hold stays as the next incremental base even when expired (snapshot_owner.py:81-93)', async () => {
      const t = await setup(release, { hold_pending_snapshots: true });
      await runAt(t, AT);
      await replicate(t);
      // 03:07 expired and on the target, but the only common snapshot: the base of the next send.
      expect(await runAt(t, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
    });

    it('an automatic replication without a schedule bound to the task that ran is running at retention: it keeps what it has not sent (zettarepl.py:112-117, 194-222, 358)', async () => {
      const t = await setup(release, { auto: true });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
    });

    it('a replication owns only the snapshots its restrict_schedule, or its schedule with only_matching_schedule, runs at: others it does not keep (replication_task_should_replicate_parsed_snapshot, should_replicate.py:32-43)', async () => {
      const t = await setup(release, {
        hold_pending_snapshots: true,
        restrict_schedule: { ...EVERY_MINUTE, minute: '30' },
      });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual(['tank/src@auto-2024-01-05_05-07']);
      const matching = await setup(release, {
        hold_pending_snapshots: true,
        auto: true,
        schedule: { ...EVERY_MINUTE, minute: '30' },
        only_matching_schedule: true,
      });
      await runAt(matching, AT);
      expect(await runAt(matching, AT + 2 * HOUR)).toEqual(['tank/src@auto-2024-01-05_05-07']);
      const within = await setup(release, { hold_pending_snapshots: true, restrict_schedule: EVERY_MINUTE });
      await runAt(within, AT);
      expect(await runAt(within, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
    });

    it('a scheduler tick runs the automatic replication bound to a task that was due before retention, so what retention destroys is on the target already (zettarepl.py:105-119, 194-205; the emulator runs it to its end first, where zettarepl starts a thread)', async () => {
      const t = await setup(release, { auto: true });
      // Task 2 on another dataset, due every minute, the only one due at the last tick: task 1 runs at :07 only.
      await t.call(t.admin, 'pool.snapshottask.update', 1, { schedule: { ...EVERY_MINUTE, minute: '7' } });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/other' });
      await t.call(t.admin, 'pool.snapshottask.create', {
        dataset: 'tank/other',
        lifetime_value: 1,
        lifetime_unit: 'HOUR',
        schedule: EVERY_MINUTE,
      });
      const scheduler = new SnapshotTaskScheduler(t.appliance);
      await scheduler.tick(AT);
      await scheduler.tick(AT + 2 * HOUR);
      expect(await snapshotsOf(t, 'tank/dst')).toEqual([
        'tank/dst@auto-2024-01-05_03-07',
        'tank/dst@auto-2024-01-05_05-07',
      ]);
      expect(await snapshotsOf(t, 'tank/src')).toEqual(['tank/src@auto-2024-01-05_05-07']);
      await scheduler.tick(AT + 2 * HOUR + 60_000);
      expect(await snapshotsOf(t, 'tank/src')).toEqual(['tank/src@auto-2024-01-05_05-07']);
    });

    it('a disabled replication is not in the definition and keeps nothing (MW/plugins/zettarepl.py:632)', async () => {
      const t = await setup(release, { hold_pending_snapshots: true, enabled: false });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual(['tank/src@auto-2024-01-05_05-07']);
    });

    it('a replication naming the task’s schema in also_include_naming_schema, unbound, keeps it too (naming_schema.py:11-16)', async () => {
      const t = await setup(release, {
        hold_pending_snapshots: true,
        periodic_snapshot_tasks: [],
        also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
      });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
    });

    it('an SSH replication holding pending snapshots keeps them all: its target cannot be listed, "Assuming remote has no snapshots" (snapshot_owner.py:96-104)', async () => {
      const t = await setup(release, { name: 'local' });
      await t.call(t.admin, 'keychaincredential.create', {
        name: 'nas2',
        type: 'SSH_CREDENTIALS',
        attributes: { host: 'nas2.example', private_key: 1, remote_host_key: 'ssh-ed25519 AAAA' },
      });
      await t.call(t.admin, 'replication.delete', 1);
      await t.call(t.admin, 'replication.create', {
        name: 'ssh',
        direction: 'PUSH',
        transport: 'SSH',
        ssh_credentials: 1,
        source_datasets: ['tank/src'],
        target_dataset: 'backup/src',
        recursive: false,
        auto: false,
        retention_policy: 'NONE',
        periodic_snapshot_tasks: [1],
        hold_pending_snapshots: true,
      });
      await runAt(t, AT);
      expect(await runAt(t, AT + 2 * HOUR)).toEqual([
        'tank/src@auto-2024-01-05_03-07',
        'tank/src@auto-2024-01-05_05-07',
      ]);
    });
  });
}
