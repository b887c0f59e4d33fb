/**
 * `replication.run` of an SSH push, rehearsed between two real servers on loopback: the task's
 * `ssh_credentials` name the other `stor serve` (host, port, a user whose sshpubkey holds the key
 * pair's public key, its host key), as zettarepl's definition reads them
 * (MW/plugins/zettarepl.py:702-713), and the run goes through replication/remote.ts
 * (docs/REPLICATION.md).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { listSnapshots } from '../../../../src/core/store/snapshots.js';
import { REPLICATION_SCHEMA } from '../../../helpers/replication-spec.js';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { ED25519_PRIVATE, ED25519_PUBLIC } from '../../../helpers/ssh-key-fixtures.js';

const settings = { ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' as const };
/** The instant at which the appliance's wall clock (UTC-8 in January) reads 2024-01-05 HH:00. */
const la = (hour: number) => Date.UTC(2024, 0, 5, hour + 8, 0, 0);
const snapName = (hour: number) => `auto-2024-01-05_${String(hour).padStart(2, '0')}-00`;

async function snap(s: TestServer, hour: number): Promise<void> {
  s.appliance.now = () => la(hour);
  await s.testAppliance.call(s.testAppliance.admin, 'pool.snapshot.create', {
    dataset: 'tank/src',
    naming_schema: REPLICATION_SCHEMA,
  });
}

const names = (s: TestServer, dataset: string) =>
  listSnapshots(s.appliance.store.db)
    .filter((x) => x.dataset === dataset)
    .map((x) => x.id.slice(x.id.indexOf('@') + 1));

/** A source with tank/src and its key pair and SSH credentials for a target whose root holds the key. */
async function pair(hostKey?: string) {
  const source = await startTestServer(settings);
  const target = await startTestServer(settings);
  const s = source.testAppliance;
  const t = target.testAppliance;
  await s.call(s.admin, 'pool.dataset.create', { name: 'tank/src' });
  // Without legacy_jobs a job's call answers with the job's result once it ends.
  await s.call(s.admin, 'core.set_options', { legacy_jobs: false });
  const [root] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'root']]);
  await t.call(t.admin, 'user.update', root!.id, { sshpubkey: ED25519_PUBLIC });
  // The target's SSH service runs (stopped on a new appliance: no sshd would answer).
  await t.call(t.admin, 'core.set_options', { legacy_jobs: false });
  await t.call(t.admin, 'service.control', 'START', 'ssh');
  const key = hostKey ?? (await (await fetch(`${target.url}/_stor/zfs/host-key`)).text());
  await s.call(s.admin, 'keychaincredential.create', {
    name: 'key',
    type: 'SSH_KEY_PAIR',
    attributes: { private_key: ED25519_PRIVATE },
  });
  await s.call(s.admin, 'keychaincredential.create', {
    name: 'nas2',
    type: 'SSH_CREDENTIALS',
    attributes: { host: '127.0.0.1', port: target.port, username: 'root', private_key: 1, remote_host_key: key },
  });
  await s.call(s.admin, 'replication.create', {
    name: 'offsite',
    direction: 'PUSH',
    transport: 'SSH',
    ssh_credentials: 2,
    source_datasets: ['tank/src'],
    target_dataset: 'tank/dst',
    recursive: false,
    auto: false,
    retention_policy: 'NONE',
    also_include_naming_schema: [REPLICATION_SCHEMA],
  });
  return { source, target };
}

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
