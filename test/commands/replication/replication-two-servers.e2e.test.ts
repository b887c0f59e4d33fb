/**
 * A replication to another appliance rehearsed end to end with the built binary only, as an
 * operator would script it (docs/REPLICATION.md): two `stor serve` on loopback, each with its own
 * state; on the source the target's host key (keychaincredential.remote_ssh_host_key_scan), a key
 * pair and the SSH connection (keychaincredential.setup_ssh_connection,
 * MW/plugins/keychain_/ssh_connections.py:43-97; both through `stor call`: no keychain verb yet), on the
 * target a user whose `sshpubkey` is that key pair's public key; a dataset with a file and two
 * snapshots; `stor replication create … --transport SSH`, `run --wait`; the target read back with
 * `stor snapshot list`. A second run after a third snapshot sends that one only: its job reads
 * `Sending 1 of 1` (the engine's progress, zettarepl's ReplicationTaskSnapshotStart). Both releases
 * are covered: each case runs one at each end.
 */
import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { localFile } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { envOf } from '../../helpers/served.js';
import { sessionEnv } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';

const SCHEMA = 'auto-%Y-%m-%d_%H-%M';
const snap = (hour: number) => `auto-2024-01-05_${String(hour).padStart(2, '0')}-00`;

const json = async <T>(p: Promise<{ stdout: string }>): Promise<T> => JSON.parse((await p).stdout) as T;

/** `stor snapshot list DATASET --json`'s names. */
async function snapshotNames(run: ReturnType<typeof stor>, dataset: string): Promise<string[]> {
  const rows = await json<{ name: string }[]>(run(['snapshot', 'list', dataset, '--json']));
  return rows.map((r) => r.name);
}

const cases: [string, string[], string[]][] = [
  ['a 25.10.1 source to a 26.0 target', [], ['--emulate', 'truenas-26.0']],
  ['a 26.0 source to a 25.10.1 target', ['--emulate', 'truenas-26.0'], ['--emulate', 'truenas-25.10.1']],
];

describe('stor replication between two stor serve (built binary)', () => {
  it.each(cases)(
    '%s: the first run sends every snapshot, the second only the new one',
    async (_, sourceArgs, targetArgs) => {
      const [source, target] = await Promise.all([
        spawnServe(tempDir(), sourceArgs),
        spawnServe(tempDir(), targetArgs),
      ]);
      try {
        // Through the session agent, as an operator's script runs: one login per appliance, not one
        // per command (20 logins a minute is the appliances' limit, MW/utils/rate_limit/cache.py).
        const { env: sessions } = sessionEnv();
        const onSource = stor({ ...envOf(source), ...sessions });
        const onTarget = stor({ ...envOf(target), ...sessions });

        // The source: the target's host key as ssh-keyscan finds it, then a key pair and the
        // connection naming the target, its user and that host key.
        // The target's SSH service runs (stopped on a new appliance, as on a fresh TrueNAS).
        await onTarget(['service', 'start', 'ssh']);
        const port = Number(new URL(target.url).port);
        const hostKey = JSON.parse(
          (
            await onSource([
              'call',
              'keychaincredential.remote_ssh_host_key_scan',
              JSON.stringify({ host: '127.0.0.1', port }),
            ])
          ).stdout,
        ) as string;
        const connection = await json<{ id: number; attributes: { private_key: number } }>(
          onSource([
            'call',
            'keychaincredential.setup_ssh_connection',
            JSON.stringify({
              setup_type: 'MANUAL',
              connection_name: 'nas2',
              private_key: { generate_key: true, name: 'nas2-key' },
              manual_setup: {
                host: '127.0.0.1',
                port,
                username: 'replicator',
                remote_host_key: hostKey,
              },
            }),
          ]),
        );
        const pair = await json<{ attributes: { public_key: string } }>(
          onSource(['call', 'keychaincredential.get_instance', String(connection.attributes.private_key)]),
        );

        // The target: a user with a writable home (user.update refuses an sshpubkey for
        // /var/empty, MW/plugins/account.py) holding that public key.
        await onTarget(['dataset', 'create', 'tank/homes']);
        await onTarget(['mkdir', '/mnt/tank/homes/replicator']);
        const user = await json<{ id: number }>(
          onTarget([
            'user',
            'create',
            'replicator',
            '--home',
            '/mnt/tank/homes/replicator',
            '--password-disabled',
            '--json',
          ]),
        );
        await onTarget([
          'call',
          'user.update',
          String(user.id),
          JSON.stringify({ sshpubkey: pair.attributes.public_key }),
        ]);

        // The source's data: a file, two snapshots, and the task.
        await onSource(['dataset', 'create', 'tank/src']);
        await onSource(['upload', localFile('report.txt', 'quarterly numbers\n'), '/mnt/tank/src/']);
        await onSource(['snapshot', 'create', `tank/src@${snap(9)}`]);
        await onSource(['snapshot', 'create', `tank/src@${snap(10)}`]);
        await onSource([
          'replication',
          'create',
          'offsite',
          '--source',
          'tank/src',
          '--target',
          'tank/dst',
          '--transport',
          'SSH',
          '--ssh-credentials',
          String(connection.id),
          '--also-include-naming-schema',
          SCHEMA,
          '--retention',
          'NONE',
          '--no-auto',
          '--yes',
        ]);

        const first = await json<{ job_id: number; state: string }>(
          onSource(['replication', 'run', 'offsite', '--wait', '--json']),
        );
        expect(first.state).toBe('SUCCESS');
        expect(await snapshotNames(onTarget, 'tank/dst')).toEqual([snap(9), snap(10)]);
        expect((await onTarget(['ls', '/mnt/tank/dst'])).stdout).toContain('report.txt');
        expect(await json(onSource(['job', 'show', String(first.job_id), '--json']))).toMatchObject({
          state: 'SUCCESS',
          description: `Sending 2 of 2: tank/src@${snap(10)}`,
        });

        await onSource(['snapshot', 'create', `tank/src@${snap(11)}`]);
        const second = await json<{ job_id: number; state: string }>(
          onSource(['replication', 'run', 'offsite', '--wait', '--json']),
        );
        expect(second.state).toBe('SUCCESS');
        // Only the new snapshot went: one send, the one the target lacked.
        expect(await json(onSource(['job', 'show', String(second.job_id), '--json']))).toMatchObject({
          state: 'SUCCESS',
          description: `Sending 1 of 1: tank/src@${snap(11)}`,
        });
        expect(await snapshotNames(onTarget, 'tank/dst')).toEqual([snap(9), snap(10), snap(11)]);
        expect(await snapshotNames(onSource, 'tank/src')).toEqual([snap(9), snap(10), snap(11)]);
        const [status] = await json<{ state: string; datasets: { source_newest: string }[] }[]>(
          onSource(['replication', 'status', 'offsite', '--json']),
        );
        expect(status).toMatchObject({ state: 'FINISHED', datasets: [{ source_newest: `tank/src@${snap(11)}` }] });
      } finally {
        await Promise.all([source.stop(), target.stop()]);
      }
    },
  );
});
