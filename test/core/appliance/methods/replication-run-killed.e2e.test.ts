/**
 * A LOCAL replication whose `stor serve` is killed (SIGKILL) midway: after a restart on the same
 * state directory, the next run goes on from what the target received and the target ends with
 * exactly the source's snapshots; none is left half-received, none is lost on the source
 * (docs/REPLICATION.md; each receive is one transaction, replication/run.ts receiveSnapshot, as
 * `zfs recv` of one snapshot either lands or leaves nothing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectJsonRpc } from '../../../helpers/json-rpc-client.js';
import { localFile } from '../../../helpers/client-env.js';
import { stor } from '../../../helpers/runbook.js';
import { spawnServe, type ServeProcess } from '../../../helpers/serve-process.js';
import { envOf } from '../../../helpers/served.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { localPush } from '../../../helpers/replication-spec.js';

type Entry = Record<string, unknown>;

/** Enough sends that the run is still going when its third one is reported (see the kill below). */
const N = 60;
const SCHEMA = 'auto-%Y-%m-%d_%H-%M';
/** The i-th snapshot's name: one a minute from 2024-01-05 00:00. */
const nameOf = (i: number) =>
  `auto-2024-01-05_${String(Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}`;
const SOURCE_NAMES = Array.from({ length: N }, (_, i) => nameOf(i));

async function loggedIn(server: ServeProcess) {
  const rpc = await connectJsonRpc(server.rpcUrl);
  expect(await rpc.call('auth.login_with_api_key', readFileSync(server.adminKeyFile, 'utf8').trim())).toBe(true);
  return rpc;
}

const snapshotNames = async (rpc: Awaited<ReturnType<typeof loggedIn>>, dataset: string) =>
  (await rpc.call<Entry[]>('pool.snapshot.query', [['dataset', '=', dataset]])).map((s) => s.snapshot_name as string);

describe('a replication whose stor serve is killed midway', () => {
  it('after a restart the next run ends with exactly the source snapshots on the target; none partial, none lost', async () => {
    const stateDir = tempDir();
    const first = await spawnServe(stateDir);
    const rpc = await loggedIn(first);
    await rpc.call('pool.dataset.create', { name: 'tank/src' });
    // Data in every snapshot, so each receive copies files.
    await stor(envOf(first))(['upload', localFile('data.bin', Buffer.alloc(256 * 1024, 7)), '/mnt/tank/src/']);
    for (const name of SOURCE_NAMES) await rpc.call('pool.snapshot.create', { dataset: 'tank/src', name });
    const task = await rpc.call<Entry>(
      'replication.create',
      localPush({ name: 'backup', periodic_snapshot_tasks: [], also_include_naming_schema: [SCHEMA] }),
    );

    // The kill is driven by the job's own progress, not by time: the engine reports `Sending k of
    // N` before the k-th send (replication/run.ts), after the k-1 before it were received. On the
    // first report of a k ≥ 3 the server is stopped at once (SIGSTOP: nothing more runs there),
    // then killed. Whether the run had ended by then cannot be asked of a stopped server; it is
    // read after the restart instead: the target holding fewer than N snapshots is what shows the
    // kill landed midway, and N is large enough that the other N-3 sends cannot all have happened
    // while one event travelled to this process. Should the run have ended first (a report of the
    // job's end before any k ≥ 3), `reported` says so and the test fails, rather than pass
    // without having killed anything.
    await rpc.call('core.subscribe', 'core.get_jobs');
    const reported = new Promise<{ k: number } | { ended: string }>((resolve) =>
      rpc.onNote((note) => {
        const job = note.fields as Entry | undefined;
        if (note.collection !== 'core.get_jobs' || job?.method !== 'replication.run') return;
        if (job.state === 'SUCCESS' || job.state === 'FAILED') resolve({ ended: String(job.state) });
        const m = /^Sending (\d+) of \d+:/.exec(String((job.progress as Entry | undefined)?.description));
        if (m && Number(m[1]) >= 3) {
          first.child.kill('SIGSTOP');
          resolve({ k: Number(m[1]) });
        }
      }),
    );
    const jobId = await rpc.call<number>('replication.run', task.id);
    expect(jobId).toEqual(expect.any(Number));
    const killedAt = await reported;
    expect(killedAt).toEqual({ k: expect.any(Number) });
    expect(await first.stop('SIGKILL')).toBeNull();
    rpc.close();

    const second = await spawnServe(stateDir);
    const again = await loggedIn(second);
    try {
      // What the killed run left: whole snapshots, in order, a prefix of the source's; the one in
      // flight is not there at all. At least the k-1 reported before the kill arrived.
      const left = await snapshotNames(again, 'tank/dst');
      expect(left).toEqual(SOURCE_NAMES.slice(0, left.length));
      expect(left.length).toBeGreaterThanOrEqual((killedAt as { k: number }).k - 1);
      expect(left.length).toBeLessThan(N);
      // Nor its files: the state holds one copy per snapshot the appliance lists, the in-flight
      // copy of the killed receive swept at start (jobs/stray-snapshot-copies.ts).
      expect(readdirSync(join(stateDir, 'snapshots'))).toHaveLength(N + left.length);
      // The killed run's job and the task's RUNNING state died with the process: a new run starts.
      const [entry] = await again.call<Entry[]>('replication.query', [['id', '=', task.id]]);
      expect((entry!.state as Entry).state).not.toBe('RUNNING');

      const run = stor(envOf(second));
      const rerun = JSON.parse((await run(['replication', 'run', 'backup', '--wait', '--json'])).stdout) as Entry;
      expect(rerun).toMatchObject({ state: 'SUCCESS' });
      // Only what the target lacked was sent.
      expect(JSON.parse((await run(['job', 'show', String(rerun.job_id), '--json'])).stdout)).toMatchObject({
        description: `Sending ${N - left.length} of ${N - left.length}: tank/src@${nameOf(N - 1)}`,
      });
      const listed = (dataset: string) =>
        run(['snapshot', 'list', dataset, '--json']).then((r) =>
          (JSON.parse(r.stdout) as { name: string }[]).map((s) => s.name),
        );
      expect(await listed('tank/dst')).toEqual(SOURCE_NAMES);
      expect(await listed('tank/src')).toEqual(SOURCE_NAMES);
      expect((await run(['ls', '/mnt/tank/dst'])).stdout).toContain('data.bin');
    } finally {
      again.close();
      await second.stop();
    }
  });
});
