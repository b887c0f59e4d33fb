/**
 * Periodic snapshot tasks in desired state, end to end (docs/STATE.md "Snapshot
 * tasks"): applied after the datasets they snapshot, exported and reproduced on a fresh target of
 * each release with no change planned, and, before anything changes, the snapshots a shorter
 * lifetime, a schedule change or a `--prune` delete lets go listed in the plan (`--json` notes) and
 * shown before `apply` asks. The commands run in-process (commandsUnderTest, the same `run()` the
 * binary calls) unless STOR_BIN_UNDER_TEST names another build; the question at a terminal is the
 * built binary's.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { commandsUnderTest } from '../../helpers/stor-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const RELEASES = [
  ['25.10.1', []],
  ['26.0', ['--emulate', 'truenas-26.0']],
] as const;

/** A fresh `stor serve` of the release, and `run(args, code)` against it (failing the test on another exit code). */
async function target(args: readonly string[]) {
  const server = await spawnServe(tempDir('stor-tasks-serve-'), [...args]);
  servers.push(server);
  const env = {
    STOR_HOME: tempDir('stor-tasks-home-'),
    STOR_CONFIG_DIR: tempDir('stor-tasks-config-'),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    // 26's SCRAM key login names the key's user (docs/ENVIRONMENT.md STOR_USER): the admin key is truenas_admin's.
    STOR_USER: 'truenas_admin',
  };
  return { run: commandsUnderTest(env), env };
}

const file = (text: string): string => {
  const path = join(tempDir('stor-tasks-file-'), 'state.yaml');
  writeFileSync(path, text);
  return path;
};

interface Plan {
  changes: { kind: string; name: string; action: string; changes: { field: string; from: unknown; to: unknown }[] }[];
  notes: string[];
}
interface Applied {
  results: { kind: string; name: string; action: string; status: string }[];
}

/**
 * A minute of the hour half an hour from now (never 00 or 17, which the tests' other names use):
 * `stor serve` runs its tasks at each real minute, so a task scheduled at this minute takes no
 * snapshot of its own while a test reads the ones it made (no test lasts half an hour).
 */
const QUIET_MINUTE = ((m) => String(m === 0 || m === 17 ? m + 1 : m).padStart(2, '0'))(
  (new Date().getUTCMinutes() + 30) % 60,
);

const STATE = [
  'stor_state: 1',
  'datasets:',
  '  - { name: tank/data }',
  '  - { name: tank/data/tmp }',
  'snapshot_tasks:',
  `  - { dataset: tank/data, naming_schema: "auto-%Y-%m-%d_%H-%M", lifetime: 2w, schedule: "${QUIET_MINUTE} * * * *" }`,
  '  - dataset: tank/data',
  '    naming_schema: "daily-%Y%m%d-%H%M"',
  '    recursive: true',
  '    exclude: [tank/data/tmp]',
  '    lifetime: { value: 6, unit: MONTH }',
  `    schedule: { minute: "${QUIET_MINUTE}", hour: "8-18", dow: "mon-fri", begin: "08:00", end: "18:30" }`,
  '    allow_empty: false',
  '',
].join('\n');

/** A snapshot name of the task's schema, `days` before now at `minute` (the appliance's zone is hours off UTC; days are not). */
const nameDaysAgo = (days: number, minute = '17'): string => {
  const d = new Date(Date.now() - days * 86_400_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `auto-${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}_${p(d.getUTCHours())}-${minute}`;
};

describe('snapshot tasks in desired state (the built binary)', () => {
  it('applies datasets then tasks, and the export applied to a fresh target of the other release plans no change', async () => {
    const [a, b] = await Promise.all([target(RELEASES[0][1]), target(RELEASES[1][1])]);
    const state = file(STATE);
    const first = JSON.parse((await a.run(['apply', '-f', state, '--yes', '--json'])).stdout) as Applied;
    expect(first.results.map((r) => `${r.status} ${r.action} ${r.kind} ${r.name}`)).toEqual([
      'done create datasets tank/data',
      'done create datasets tank/data/tmp',
      'done create snapshot_tasks tank/data@auto-%Y-%m-%d_%H-%M',
      'done create snapshot_tasks tank/data@daily-%Y%m%d-%H%M',
    ]);
    await a.run(['plan', '-f', state], 0);
    const tasks = JSON.parse((await a.run(['call', 'pool.snapshottask.query'])).stdout) as Record<string, unknown>[];
    expect(tasks.map((t) => [t.naming_schema, t.lifetime_value, t.lifetime_unit, t.recursive, t.allow_empty])).toEqual([
      ['auto-%Y-%m-%d_%H-%M', 2, 'WEEK', false, true],
      ['daily-%Y%m%d-%H%M', 6, 'MONTH', true, false],
    ]);
    expect(tasks[1]!.schedule).toEqual({
      minute: QUIET_MINUTE,
      hour: '8-18',
      dom: '*',
      month: '*',
      dow: 'mon-fri',
      begin: '08:00',
      end: '18:30',
    });

    // A task changed by hand: drift, shown in the file's terms.
    await a.run([
      'call',
      'pool.snapshottask.update',
      String(tasks[0]!.id),
      '{"lifetime_value": 3, "lifetime_unit": "DAY"}',
    ]);
    const drift = await a.run(['plan', '-f', state], 7);
    expect(drift.stdout).toContain('snapshot task tank/data@auto-%Y-%m-%d_%H-%M');
    expect(drift.stdout).toContain('lifetime: 3d → 2w');
    await a.run(['apply', '-f', state, '--yes']);
    // A schedule changed by hand: drift too, until apply puts the file's back.
    await a.run([
      'call',
      'pool.snapshottask.update',
      String(tasks[1]!.id),
      JSON.stringify({ schedule: { ...(tasks[1]!.schedule as Record<string, string>), hour: '9-17' } }),
    ]);
    const moved = await a.run(['plan', '-f', state], 7);
    expect(moved.stdout).toContain('snapshot task tank/data@daily-%Y%m%d-%H%M');
    expect(moved.stdout).toContain('9-17');
    await a.run(['apply', '-f', state, '--yes']);
    await a.run(['plan', '-f', state], 0);

    const exported = (await a.run(['export', '--only', 'datasets,snapshot_tasks'])).stdout;
    expect(exported).toContain('snapshot_tasks:');
    const copy = file(exported);
    const made = JSON.parse((await b.run(['apply', '-f', copy, '--yes', '--json'])).stdout) as Applied;
    expect(made.results.filter((r) => r.kind === 'snapshot_tasks').map((r) => `${r.status} ${r.name}`)).toEqual([
      'done tank/data@auto-%Y-%m-%d_%H-%M',
      'done tank/data@daily-%Y%m%d-%H%M',
    ]);
    await b.run(['plan', '-f', copy], 0);
    await b.run(['plan', '-f', state], 0);
    expect((await b.run(['export', '--only', 'datasets,snapshot_tasks'])).stdout).toBe(exported);
  }, 120_000);

  for (const [release, args] of RELEASES) {
    it(`${release}: the plan lists the snapshots a shorter lifetime lets retention destroy and those a schedule change leaves to no task, changing nothing`, async () => {
      const { run } = await target(args);
      const task = (lifetime: string, schedule = `${QUIET_MINUTE} * * * *`) =>
        file(
          `stor_state: 1\ndatasets: [{ name: tank/data }]\nsnapshot_tasks:\n  - { dataset: tank/data, naming_schema: "auto-%Y-%m-%d_%H-%M", schedule: "${schedule}", lifetime: ${lifetime} }\n`,
        );
      await run(['apply', '-f', task('1y'), '--yes']);
      const names = [40, 20, 3, 2].map((days) => nameDaysAgo(days, QUIET_MINUTE));
      for (const name of names)
        await run(['call', 'pool.snapshot.create', JSON.stringify({ dataset: 'tank/data', name })]);
      const ids = names.map((n) => `tank/data@${n}`);

      const shorter = JSON.parse((await run(['plan', '-f', task('1w'), '--json'], 7)).stdout) as Plan;
      expect(shorter.changes.map((c) => c.changes)).toEqual([[{ field: 'lifetime', from: '1y', to: '1w' }]]);
      // 3 days old is within a week; 2 days old is the newest, which retention never destroys.
      expect(shorter.notes).toEqual([
        `snapshot task tank/data@auto-%Y-%m-%d_%H-%M: the lifetime 1w (now 1y) lets retention destroy 2 snapshot(s): ${ids[0]}, ${ids[1]} at its next run`,
      ]);
      const hourly = JSON.parse((await run(['plan', '-f', task('1y', '0 * * * *'), '--json'], 7)).stdout) as Plan;
      expect(hourly.notes).toEqual([
        `snapshot task tank/data@auto-%Y-%m-%d_%H-%M: this change leaves 4 snapshot(s): ${[...ids].sort().join(', ')} to no task's retention: they stay until removed by hand`,
      ]);
      const snapshots = JSON.parse((await run(['call', 'pool.snapshot.query'])).stdout) as { id: string }[];
      expect(snapshots.map((s) => s.id).sort()).toEqual([...ids].sort());
    }, 120_000);
  }

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'apply --prune shows the snapshots a task it deletes leaves before it asks; no, and nothing changed',
    async () => {
      const { run, env } = await target([]);
      await run(['apply', '-f', file(STATE), '--yes']);
      // At the minute the task's schedule runs, so they are the task's.
      const names = [3, 2].map((days) => nameDaysAgo(days, QUIET_MINUTE));
      for (const name of names)
        await run(['call', 'pool.snapshot.create', JSON.stringify({ dataset: 'tank/data', name })]);
      await run(['call', 'pool.snapshottask.create', '{"dataset": "tank/data", "naming_schema": "hand-%Y%m%d%H%M"}']);
      const fewer = file(STATE.split('snapshot_tasks:')[0]!);
      const note = `snapshot task tank/data@auto-%Y-%m-%d_%H-%M: deleting it leaves 2 snapshot(s): ${names
        .map((n) => `tank/data@${n}`)
        .sort()
        .join(', ')} to no task's retention: they stay until removed by hand`;
      const planned = JSON.parse((await run(['plan', '-f', fewer, '--prune', '--json'], 7)).stdout) as Plan;
      // The task made by hand stays.
      expect(planned.changes.map((c) => `${c.action} ${c.name}`)).toEqual([
        'delete tank/data@auto-%Y-%m-%d_%H-%M',
        'delete tank/data@daily-%Y%m%d-%H%M',
      ]);
      expect(planned.notes).toEqual([note]);
      const asked = await answerOnTerminal(['apply', '-f', fewer, '--prune'], env, 'n');
      const shown = asked.shown.replace(/\r/g, '');
      expect(shown.indexOf(note)).toBeGreaterThanOrEqual(0);
      expect(shown.indexOf(note)).toBeLessThan(shown.indexOf('(y/N)'));
      expect(shown).toContain('- delete');
      const tasks = JSON.parse((await run(['call', 'pool.snapshottask.query'])).stdout) as unknown[];
      expect(tasks).toHaveLength(3);
    },
    120_000,
  );
});
