/**
 * `stor snapshot task list|show|create|update|delete|run`, in-process on the embedded appliance:
 * what each sends and answers, the retention previews shown before consent, and the usage errors
 * that come before any call.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { clientEnv } from '../../../helpers/client-env.js';
import { runStor } from '../../../helpers/run-stor.js';
import { startTestServer } from '../../../helpers/server.js';
import { errorOf, shareTarget } from '../../../helpers/share-cli.js';

/** A fresh appliance with tank/a, and a task on it every minute (so a run's snapshot is the task's). */
async function withTask(extra: string[] = []) {
  const target = await shareTarget([]);
  expect((await target.run(['dataset', 'create', 'tank/a'])).code).toBe(0);
  const made = await target.json<{ task: { id: number } }>([
    'snapshot',
    'task',
    'create',
    'tank/a',
    '--lifetime',
    '2w',
    '--schedule',
    '* * * * *',
    ...extra,
  ]);
  /** The snapshot ids the appliance holds. */
  const held = async () => (await target.json<{ id: string }[]>(['snapshot', 'list'])).map((s) => s.id);
  return { ...target, id: String(made.task.id), held };
}

describe('stor snapshot task create', () => {
  it('sends the lifetime, cron line, window and flags as the task fields; --json answers the stored task', async () => {
    const { json, run } = await shareTarget([]);
    await run(['dataset', 'create', 'tank/a/b', '--parents']);
    const made = await json<{ task: unknown }>([
      'snapshot',
      'task',
      'create',
      'tank/a',
      '--naming-schema',
      'hourly-%Y%m%d-%H%M',
      '--lifetime',
      '30d',
      '--schedule',
      '15 */2 * * mon-fri',
      '--recursive',
      '--exclude',
      'tank/a/b',
      '--no-allow-empty',
      '--disabled',
      '--begin',
      '08:00',
      '--end',
      '18:00',
    ]);
    expect(made).toMatchObject({ dry_run: false });
    expect(made.task).toMatchObject({
      id: 1,
      dataset: 'tank/a',
      recursive: true,
      exclude: ['tank/a/b'],
      naming_schema: 'hourly-%Y%m%d-%H%M',
      lifetime_value: 30,
      lifetime_unit: 'DAY',
      allow_empty: false,
      enabled: false,
      schedule: { minute: '15', hour: '*/2', dom: '*', month: '*', dow: 'mon-fri', begin: '08:00', end: '18:00' },
    });
  });

  it('a lifetime of 0 or a bad cron line is a usage error (exit 2) and no task is made', async () => {
    const { run, json } = await shareTarget([]);
    await run(['dataset', 'create', 'tank/a']);
    const zero = await run(['snapshot', 'task', 'create', 'tank/a', '--lifetime', '0w', '--json']);
    expect(zero.code).toBe(2);
    expect(errorOf(zero).message).toContain('keeps no snapshot');
    const cron = await run(['snapshot', 'task', 'create', 'tank/a', '--schedule', '0 25 * * *', '--json']);
    expect(cron.code).toBe(2);
    expect(errorOf(cron).message).toContain('not a schedule');
    expect(await json(['snapshot', 'task', 'list'])).toEqual([]);
  });

  it("the appliance's own refusal (a naming schema without the date) is shown as for other verbs, exit 1", async () => {
    const { run, json } = await shareTarget([]);
    await run(['dataset', 'create', 'tank/a']);
    const bad = await run(['snapshot', 'task', 'create', 'tank/a', '--naming-schema', 'plain', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('data.naming_schema: Value error, %Y must be present in snapshot naming schema');
    expect(await json(['snapshot', 'task', 'list'])).toEqual([]);
  });

  it('--dry-run makes nothing and says what it would create', async () => {
    const { run, json } = await shareTarget([]);
    await run(['dataset', 'create', 'tank/a']);
    const dry = await json(['snapshot', 'task', 'create', 'tank/a', '--lifetime', '1y', '--dry-run']);
    expect(dry).toMatchObject({ dry_run: true, task: { dataset: 'tank/a', lifetime_value: 1, lifetime_unit: 'YEAR' } });
    expect(await json(['snapshot', 'task', 'list'])).toEqual([]);
    const missing = await run(['snapshot', 'task', 'create', 'tank/nope', '--dry-run', '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
  });
});

describe('stor snapshot task list and show', () => {
  it('lists the tasks (of one dataset with DATASET) as a table of cron lines and lifetimes; --json gives the query rows', async () => {
    const { run, json, id } = await withTask(['--begin', '09:00', '--end', '17:00']);
    const rows = await json<{ id: number; dataset: string }[]>(['snapshot', 'task', 'list']);
    expect(rows).toEqual([expect.objectContaining({ id: Number(id), dataset: 'tank/a', lifetime_unit: 'WEEK' })]);
    expect(await json(['snapshot', 'task', 'list', 'tank/other'])).toEqual([]);
    const piped = await run(['snapshot', 'task', 'list', 'tank/a']);
    expect(piped.stdout).toBe(
      `${id}\ttank/a\tfalse\tauto-%Y-%m-%d_%H-%M\t2w\t* * * * * (09:00-17:00)\ttrue\tPENDING\n`,
    );
    expect(await json(['snapshot', 'task', 'show', id])).toMatchObject({ id: Number(id), dataset: 'tank/a' });
    const none = await run(['snapshot', 'task', 'show', '9', '--json']);
    expect(none.code).toBe(1);
    expect(errorOf(none).code).toBe('NOT_FOUND');
  });
});

describe('stor snapshot task run', () => {
  it('takes the task snapshot now and names what was taken', async () => {
    const { json, id, held } = await withTask();
    const ran = await json<{ taken: string[] }>(['snapshot', 'task', 'run', id]);
    expect(ran.taken).toHaveLength(1);
    expect(ran.taken[0]).toMatch(/^tank\/a@auto-\d{4}-\d\d-\d\d_\d\d-\d\d$/);
    expect(await held()).toEqual(ran.taken);
  });
});

describe('stor snapshot task delete', () => {
  it('shows the snapshots no task will then remove before it asks; refuses off a terminal without --yes; --yes deletes the task, not the snapshots', async () => {
    const { run, json, id, held } = await withTask();
    const { taken } = await json<{ taken: string[] }>(['snapshot', 'task', 'run', id]);
    const refused = await run(['snapshot', 'task', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(taken[0]);
    expect(refused.stderr.indexOf(taken[0]!)).toBeLessThan(refused.stderr.indexOf('--yes'));
    expect(await json(['snapshot', 'task', 'list'])).toHaveLength(1);
    const dry = await json(['snapshot', 'task', 'delete', id, '--dry-run']);
    expect(dry).toMatchObject({ id: Number(id), dry_run: true, deleted: false, retention_dropped: taken });
    expect(await json(['snapshot', 'task', 'list'])).toHaveLength(1);
    const gone = await json(['snapshot', 'task', 'delete', id, '--yes', '--fixate-removal-date']);
    expect(gone).toMatchObject({ id: Number(id), deleted: true, retention_dropped: taken });
    expect(await json(['snapshot', 'task', 'list'])).toEqual([]);
    expect(await held()).toEqual(taken);
  });

  it('an unknown id is NOT_FOUND before anything is asked; --ignore-not-found exits 0', async () => {
    const { run, json } = await shareTarget([]);
    const missing = await run(['snapshot', 'task', 'delete', '4', '--yes', '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
    expect(await json(['snapshot', 'task', 'delete', '4', '--yes', '--ignore-not-found'])).toMatchObject({
      found: false,
    });
  });
});

describe('stor snapshot task update', () => {
  it('changes the fields given; a change that leaves snapshots to no task shows them and asks', async () => {
    const { run, json, id } = await withTask();
    expect(await json(['snapshot', 'task', 'update', id, '--lifetime', '6m'])).toMatchObject({
      task: { lifetime_value: 6, lifetime_unit: 'MONTH' },
    });
    const { taken } = await json<{ taken: string[] }>(['snapshot', 'task', 'run', id]);
    const args = ['snapshot', 'task', 'update', id, '--naming-schema', 'other-%Y-%m-%d_%H-%M'];
    const refused = await run(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(taken[0]);
    expect(await json(['snapshot', 'task', 'show', id])).toMatchObject({ naming_schema: 'auto-%Y-%m-%d_%H-%M' });
    const dry = await json([...args, '--dry-run']);
    expect(dry).toMatchObject({
      dry_run: true,
      retention_dropped: taken,
      task: { naming_schema: 'other-%Y-%m-%d_%H-%M' },
    });
    expect(await json([...args, '--yes'])).toMatchObject({
      dry_run: false,
      retention_dropped: taken,
      task: { naming_schema: 'other-%Y-%m-%d_%H-%M' },
    });
  });

  it('with nothing to change is NOTHING_TO_UPDATE; a bad cron line is a usage error before any call', async () => {
    const { run, id } = await withTask();
    const nothing = await run(['snapshot', 'task', 'update', id, '--json']);
    expect(nothing.code).toBe(2);
    expect(errorOf(nothing).code).toBe('NOTHING_TO_UPDATE');
    const bad = await run(['snapshot', 'task', 'update', id, '--schedule', 'hourly', '--json']);
    expect(bad.code).toBe(2);
    expect(errorOf(bad).code).toBe('USAGE');
  });
});

describe('completion of snapshot task ids', () => {
  it('offers the ids of the tasks there are', async () => {
    const { run, id } = await withTask();
    const r = await run(['completion', '--values', 'snapshot-task']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${id}\n`);
  });
});

describe('on a served 26.0 appliance', () => {
  it("create, list, run and delete read 26.0's entry (id first) as 25.10.1's; an unknown id is NOT_FOUND before delete", async () => {
    const server = await startTestServer({ ...EMULATIONS['truenas-26.0'], keyLogin: 'plain' });
    const env = { ...clientEnv(), STOR_URL: `ws://127.0.0.1:${server.port}`, STOR_API_KEY: server.adminKey };
    const run = (args: string[]) => runStor(args, { env });
    const json = async <T>(args: string[]): Promise<T> => {
      const r = await run([...args, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as T;
    };
    expect((await run(['dataset', 'create', 'tank/a'])).code).toBe(0);
    const { task } = await json<{ task: { id: number } }>([
      'snapshot',
      'task',
      'create',
      'tank/a',
      '--schedule',
      '* * * * *',
    ]);
    const piped = await run(['snapshot', 'task', 'list']);
    expect(piped.stdout).toBe(`${task.id}\ttank/a\tfalse\tauto-%Y-%m-%d_%H-%M\t2w\t* * * * *\ttrue\tPENDING\n`);
    const ran = await json<{ taken: string[] }>(['snapshot', 'task', 'run', String(task.id)]);
    expect(ran.taken).toHaveLength(1);
    expect(await json(['snapshot', 'task', 'delete', String(task.id), '--yes'])).toMatchObject({
      deleted: true,
      retention_dropped: ran.taken,
    });
    const missing = await run(['snapshot', 'task', 'delete', String(task.id), '--yes', '--json']);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
  });
});
