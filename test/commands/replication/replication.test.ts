/**
 * `stor replication list|show|create|update|delete|run|status`, in-process on the embedded
 * appliance (25.10.1) and on a served 26.0 one: what each sends and answers, names and ids alike,
 * the consent before a delete, a run's job (its failure with --wait), and the status read from
 * both sides' snapshots.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { errorOf, shareTarget } from '../../helpers/share-cli.js';

type Target = Awaited<ReturnType<typeof shareTarget>>;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The embedded 25.10.1 appliance, or a served 26.0 one, with `run` and `json` as shareTarget's. */
async function target(release: '25.10.1' | '26.0'): Promise<Pick<Target, 'run' | 'json'>> {
  if (release === '25.10.1') return shareTarget([]);
  const server = await startTestServer({ ...EMULATIONS['truenas-26.0'], keyLogin: 'plain' });
  closers.push(() => server.close());
  const env = { ...clientEnv(), STOR_URL: `ws://127.0.0.1:${server.port}`, STOR_API_KEY: server.adminKey };
  const run = (args: string[]) => runStor(args, { env });
  const json = async <T = Record<string, unknown>>(args: string[]): Promise<T> => {
    const r = await run([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };
  return { run, json };
}

/** tank/src with an hourly snapshot task (id 1), tank/dst, and a LOCAL replication `backup` bound to the task. */
async function withReplication(release: '25.10.1' | '26.0', extra: string[] = []) {
  const t = await target(release);
  for (const ds of ['tank/src', 'tank/dst']) expect((await t.run(['dataset', 'create', ds])).code).toBe(0);
  await t.json(['snapshot', 'task', 'create', 'tank/src', '--lifetime', '2w', '--schedule', '0 * * * *']);
  const made = await t.json<{ task: { id: number } }>([
    'replication',
    'create',
    'backup',
    '--source',
    'tank/src',
    '--target',
    'tank/dst',
    '--transport',
    'LOCAL',
    '--task',
    '1',
    ...extra,
  ]);
  return { ...t, id: String(made.task.id) };
}

describe.each(['25.10.1', '26.0'] as const)('stor replication on %s', (release) => {
  it('create sends the options as the task fields, filling in PUSH, auto (it has a task) and SOURCE retention', async () => {
    const { json } = await withReplication(release);
    const rows = await json<Record<string, unknown>[]>(['replication', 'list']);
    expect(rows).toEqual([
      expect.objectContaining({
        id: 1,
        name: 'backup',
        direction: 'PUSH',
        transport: 'LOCAL',
        source_datasets: ['tank/src'],
        target_dataset: 'tank/dst',
        recursive: false,
        auto: true,
        retention_policy: 'SOURCE',
        enabled: true,
        periodic_snapshot_tasks: [expect.objectContaining({ id: 1, dataset: 'tank/src' })],
      }),
    ]);
  });

  it('list is a table of route, tasks, when, retention and state; show finds a task by id or by name', async () => {
    const { run, json } = await withReplication(release, ['--retention', 'CUSTOM', '--lifetime', '30d']);
    const piped = await run(['replication', 'list']);
    expect(piped.stdout).toBe(
      '1\tbackup\tPUSH\tLOCAL\ttank/src → tank/dst\t1\tafter its snapshot tasks\tCUSTOM 30d\ttrue\tPENDING\n',
    );
    expect(await json(['replication', 'show', 'backup'])).toMatchObject({ id: 1, lifetime_value: 30 });
    expect(await json(['replication', 'show', '1'])).toMatchObject({ id: 1, name: 'backup' });
    const none = await run(['replication', 'show', 'nope', '--json']);
    expect(none.code).toBe(1);
    expect(errorOf(none).code).toBe('NOT_FOUND');
  });

  it('update changes the fields given (by name), --dry-run changes nothing, nothing given is NOTHING_TO_UPDATE', async () => {
    const { run, json } = await withReplication(release);
    const dry = await json(['replication', 'update', 'backup', '--readonly', 'IGNORE', '--dry-run']);
    expect(dry).toMatchObject({ dry_run: true, task: { readonly: 'IGNORE' } });
    expect(await json(['replication', 'show', 'backup'])).toMatchObject({ readonly: 'SET' });
    const done = await json(['replication', 'update', 'backup', '--readonly', 'IGNORE', '--name', 'nightly']);
    expect(done).toMatchObject({ dry_run: false, task: { name: 'nightly', readonly: 'IGNORE' } });
    const nothing = await run(['replication', 'update', 'nightly', '--json']);
    expect(nothing.code).toBe(2);
    expect(errorOf(nothing).code).toBe('NOTHING_TO_UPDATE');
  });

  it('delete refuses off a terminal without --yes, --dry-run keeps it, --yes deletes it; unknown is NOT_FOUND', async () => {
    const { run, json } = await withReplication(release);
    const refused = await run(['replication', 'delete', 'backup']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await json(['replication', 'delete', 'backup', '--dry-run'])).toMatchObject({
      dry_run: true,
      deleted: false,
    });
    expect(await json(['replication', 'list'])).toHaveLength(1);
    expect(await json(['replication', 'delete', 'backup', '--yes'])).toMatchObject({ id: 1, deleted: true });
    expect(await json(['replication', 'list'])).toEqual([]);
    const missing = await run(['replication', 'delete', 'backup', '--yes', '--json']);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
    expect(await json(['replication', 'delete', 'backup', '--yes', '--ignore-not-found'])).toMatchObject({
      found: false,
    });
  });

  // No snapshot task has run yet, so the source has nothing to send: zettarepl's refusal fails the job.
  it('run --wait fails with the job’s error, exit non-zero', async () => {
    const { run } = await withReplication(release);
    const r = await run(['replication', 'run', 'backup', '--wait', '--json']);
    expect(r.code, r.stderr).not.toBe(0);
    expect(errorOf(r).message).toContain("Dataset 'tank/src' does not have any matching snapshots to replicate");
  });

  it('run without --wait off a terminal answers the job id', async () => {
    const { json } = await withReplication(release);
    const ran = await json<{ id: number; job_id: number; state: string }>(['replication', 'run', 'backup']);
    expect(ran.id).toBe(1);
    expect(ran.job_id).toEqual(expect.any(Number));
  });

  it('a bad lifetime or cron line is a usage error before any call; create without --target is one too', async () => {
    const { run, json } = await withReplication(release);
    const life = await run(['replication', 'update', 'backup', '--lifetime', '0d', '--json']);
    expect(life.code).toBe(2);
    const cron = await run(['replication', 'update', 'backup', '--schedule', '0 25 * * *', '--json']);
    expect(cron.code).toBe(2);
    const noTarget = await run([
      'replication',
      'create',
      'x',
      '--source',
      'tank/src',
      '--transport',
      'LOCAL',
      '--json',
    ]);
    expect(noTarget.code).toBe(2);
    expect(errorOf(noTarget).message).toContain('--target');
    expect(await json(['replication', 'list'])).toHaveLength(1);
  });
});

describe('stor replication status', () => {
  it("names each side's newest snapshot of the task's names, and what the bound task's lifetime removes next", async () => {
    const { run, json } = await withReplication('25.10.1');
    for (const s of [
      'tank/src@auto-2026-01-01_00-00',
      'tank/src@auto-2026-01-02_00-00',
      'tank/src@other',
      'tank/dst@auto-2026-01-01_00-00',
    ])
      expect((await run(['snapshot', 'create', s])).code).toBe(0);
    const [status] = await json<Record<string, unknown>[]>(['replication', 'status', 'backup']);
    expect(status).toEqual({
      id: 1,
      name: 'backup',
      enabled: true,
      state: 'PENDING',
      last_run: null,
      error: null,
      datasets: [
        {
          source: 'tank/src',
          target: 'tank/dst',
          source_newest: 'tank/src@auto-2026-01-02_00-00',
          target_newest: 'tank/dst@auto-2026-01-01_00-00',
          up_to_date: false,
          remote: null,
        },
      ],
      retention_next: [{ task: 1, snapshot: 'tank/src@auto-2026-01-01_00-00', expires: '2026-01-15T00:00:00' }],
    });
    expect((await run(['snapshot', 'create', 'tank/dst@auto-2026-01-02_00-00'])).code).toBe(0);
    const [after] = await json<{ datasets: { up_to_date: boolean }[] }[]>(['replication', 'status']);
    expect(after!.datasets[0]!.up_to_date).toBe(true);
  });

  it('after a successful run, the target holds the source newest: FINISHED and up to date', async () => {
    const { run, json } = await withReplication('25.10.1');
    expect((await run(['snapshot', 'task', 'run', '1'])).code).toBe(0);
    const ran = await run(['replication', 'run', 'backup', '--wait', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ state: 'SUCCESS', error: null });
    const [status] = await json<{ state: string; datasets: { up_to_date: boolean }[] }[]>(['replication', 'status']);
    expect(status).toMatchObject({ state: 'FINISHED', datasets: [{ up_to_date: true }] });
  });
});

describe('completion of replication tasks', () => {
  it('offers the names and ids of the tasks there are', async () => {
    const { run } = await withReplication('25.10.1');
    const r = await run(['completion', '--values', 'replication']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('1\nbackup\n');
  });
});
