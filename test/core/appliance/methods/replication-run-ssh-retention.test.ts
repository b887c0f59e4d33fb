/**
 * The task's retention on the OTHER appliance after an SSH push, rehearsed between two real
 * servers on loopback: as zettarepl's `_run_remote_retention` (zettarepl/zettarepl.py:438-476,
 * release/25.10.1 and stable/26 alike) after each run, and pre_retention
 * (zettarepl/replication/pre_retention.py:20-63) before each part's sends, the source's engine
 * selects with the LOCAL run's rules and asks the target to destroy (docs/REPLICATION.md).
 */
import { describe, expect, it } from 'vitest';
import { la, snapshotName as name } from '../../../helpers/replication-spec.js';
import { snapAt as snap, snapshotNames as names, sshReplicationPair } from '../../../helpers/ssh-replication-pair.js';
import type { TestServer } from '../../../helpers/server.js';

async function run(source: TestServer): Promise<void> {
  const s = source.testAppliance;
  expect(await s.call(s.admin, 'replication.run', 1, true)).toBeNull();
}

async function state(source: TestServer): Promise<string> {
  const s = source.testAppliance;
  const [task] = await s.call<{ state: { state: string } }[]>(s.admin, 'replication.query');
  return task!.state.state;
}

describe('replication.run of an SSH push applies the task’s retention on the target', () => {
  it('SOURCE removes on the target what the source no longer has (retention_policy.py:54-60)', async () => {
    const { source, target } = await sshReplicationPair({ task: { retention_policy: 'SOURCE' } });
    const s = source.testAppliance;
    await snap(source, 9);
    await snap(source, 10);
    await run(source);
    await s.call(s.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    await snap(source, 11);
    await run(source);
    expect(names(target, 'tank/dst')).toEqual([name(10), name(11)]);
  });

  it('CUSTOM removes only what is past its lifetime at the source’s time (retention_policy.py:66-87)', async () => {
    const { source, target } = await sshReplicationPair({
      task: { retention_policy: 'CUSTOM', lifetime_value: 2, lifetime_unit: 'HOUR' },
    });
    for (const hour of [9, 10, 11]) await snap(source, hour);
    source.appliance.now = () => la(12, 30);
    await run(source);
    // At 12:30 a 2-hour lifetime ends at 10:30: 09:00 and 10:00 go, 11:00 stays.
    expect(names(target, 'tank/dst')).toEqual([name(11)]);
    expect(names(source, 'tank/src')).toEqual([name(9), name(10), name(11)]);
  });

  it('NONE removes nothing on the target (retention_policy.py:90-95)', async () => {
    const { source, target } = await sshReplicationPair();
    const s = source.testAppliance;
    await snap(source, 9);
    await snap(source, 10);
    await run(source);
    await s.call(s.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    source.appliance.now = () => la(23);
    await run(source);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10)]);
  });

  it('a held target snapshot and one no naming schema of the task parses are never removed (destroy.py:53-61, calculate.py:27-35)', async () => {
    const { source, target } = await sshReplicationPair({ task: { retention_policy: 'SOURCE' } });
    const s = source.testAppliance;
    const t = target.testAppliance;
    for (const hour of [8, 9, 10]) await snap(source, hour);
    await run(source);
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/dst', name: 'manual' });
    await t.call(t.admin, 'pool.snapshot.hold', `tank/dst@${name(9)}`);
    await s.call(s.admin, 'pool.snapshot.delete', `tank/src@${name(8)}`);
    await s.call(s.admin, 'pool.snapshot.delete', `tank/src@${name(9)}`);
    await run(source);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10), 'manual']);
  });

  it('retention before the sends keeps the incremental base, so the run goes on incrementally (pre_retention.py:20-35)', async () => {
    const { source, target } = await sshReplicationPair({
      task: { retention_policy: 'CUSTOM', lifetime_value: 3, lifetime_unit: 'HOUR' },
    });
    const s = source.testAppliance;
    for (const hour of [9, 10, 12]) await snap(source, hour);
    await run(source);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10), name(12)]);
    // 12:00 leaves the source; at 14:00 the lifetime ends at 11:00: 09:00 and 10:00 are past it,
    // but 10:00 is the newest both sides hold — the base 14:00 is sent on.
    await s.call(s.admin, 'pool.snapshot.delete', `tank/src@${name(12)}`);
    await snap(source, 14);
    await run(source);
    expect(await state(source)).toBe('FINISHED');
    // The receive's -F took 12:00; after the run 10:00 is past its lifetime and no longer the base.
    expect(names(target, 'tank/dst')).toEqual([name(14)]);
  });
});
