import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { listSnapshots } from '../../src/core/store/snapshots.js';
import { la, REPLICATION_SCHEMA } from './replication-spec.js';
import { startTestServer, type TestServer } from './server.js';
import { ED25519_PRIVATE, ED25519_PUBLIC } from './ssh-key-fixtures.js';

const settings = { ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' as const };

/** A REPLICATION_SCHEMA snapshot of tank/src taken at `hour`:00 of the appliance's wall clock (replication-spec.ts `la`). */
export async function snapAt(s: TestServer, hour: number): Promise<void> {
  s.appliance.now = () => la(hour);
  await s.testAppliance.call(s.testAppliance.admin, 'pool.snapshot.create', {
    dataset: 'tank/src',
    naming_schema: REPLICATION_SCHEMA,
  });
}

/** The names of a dataset's snapshots, in the store's order. */
export const snapshotNames = (s: TestServer, dataset: string): string[] =>
  listSnapshots(s.appliance.store.db)
    .filter((x) => x.dataset === dataset)
    .map((x) => x.id.slice(x.id.indexOf('@') + 1));

/**
 * Two real servers: a source with tank/src, its key pair and SSH credentials (id 2) for a target
 * whose root holds the key; replication task 1 pushes tank/src to the target's tank/dst over SSH,
 * `task` changing it (retention NONE by default).
 */
export async function sshReplicationPair(
  options: { hostKey?: string; task?: Record<string, unknown> } = {},
): Promise<{ source: TestServer; target: TestServer }> {
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
  const key = options.hostKey ?? (await (await fetch(`${target.url}/_stor/zfs/host-key`)).text());
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
    ...options.task,
  });
  return { source, target };
}
