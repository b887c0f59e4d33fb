/**
 * `replication.run` of an SSH push, rehearsed between two real servers on loopback: the task's
 * `ssh_credentials` name the other `stor serve` (host, port, a user whose sshpubkey holds the key
 * pair's public key, its host key), as zettarepl's definition reads them
 * (MW/plugins/zettarepl.py:702-713), and the run goes through replication/remote.ts
 * (docs/REPLICATION.md).
 */
import { describe, expect, it } from 'vitest';
import { snapshotName as snapName } from '../../../helpers/replication-spec.js';
import { snapAt as snap, snapshotNames as names, sshReplicationPair } from '../../../helpers/ssh-replication-pair.js';

const pair = (hostKey?: string) => sshReplicationPair({ hostKey });

describe('replication.run of an SSH push to another stor serve', () => {
  it('sends the source snapshots to the server the credentials name, then only the new one; the task reads FINISHED', async () => {
    const { source, target } = await pair();
    const s = source.testAppliance;
    await snap(source, 9);
    await snap(source, 10);
    expect(await s.call(s.admin, 'replication.run', 1, true)).toBeNull();
    expect(names(target, 'tank/dst')).toEqual([snapName(9), snapName(10)]);
    await snap(source, 11);
    expect(await s.call(s.admin, 'replication.run', 1, true)).toBeNull();
    expect(names(target, 'tank/dst')).toEqual([snapName(9), snapName(10), snapName(11)]);
    const [task] = await s.call<{ state: { state: string; last_snapshot?: string } }[]>(s.admin, 'replication.query');
    expect(task!.state).toMatchObject({ state: 'FINISHED', last_snapshot: `tank/src@${snapName(11)}` });
  });

  it('a host key the target does not hold fails the job as ssh does, and sends nothing', async () => {
    const { source, target } = await pair(
      '127.0.0.1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDGq5fQW0Fw5CjqGMeFjvJn6R0nwvJl7K6BvkYlJXKqv',
    );
    const s = source.testAppliance;
    await snap(source, 9);
    const err = await s.callError(s.admin, 'replication.run', 1, true);
    expect(String(err.data?.reason ?? err.message)).toContain('Host key verification failed');
    expect(names(target, 'tank/dst')).toEqual([]);
  });
});
