/**
 * Replication tasks in desired state, end to end (docs/STATE.md
 * "Replications"): a snapshot task and the replication sending its snapshots made by one apply
 * (the replication's step looks the task's id up after the task's step), exported and reproduced
 * on a fresh target of each release with no change planned, and `--prune` deleting both in one
 * apply, the replication first (the appliance refuses deleting the last task bound to an enabled
 * replication, MW/plugins/snapshot.py:269-280). The commands run in-process (commandsUnderTest,
 * the same `run()` the binary calls) unless STOR_BIN_UNDER_TEST names another build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { commandsUnderTest } from '../../helpers/stor-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** A fresh `stor serve` of the release, and `run(args, code)` against it (failing the test on another exit code). */
async function target(args: readonly string[]) {
  const server = await spawnServe(tempDir('stor-repl-serve-'), [...args]);
  servers.push(server);
  const env = {
    STOR_HOME: tempDir('stor-repl-home-'),
    STOR_CONFIG_DIR: tempDir('stor-repl-config-'),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    STOR_USER: 'truenas_admin',
  };
  return commandsUnderTest(env);
}

const file = (text: string): string => {
  const path = join(tempDir('stor-repl-file-'), 'state.yaml');
  writeFileSync(path, text);
  return path;
};

interface Applied {
  results: { kind: string; name: string; action: string; status: string; error?: string }[];
}
const outcome = (a: Applied) => a.results.map((r) => `${r.status} ${r.action} ${r.kind} ${r.name}`);

const STATE = [
  'stor_state: 1',
  'datasets:',
  '  - { name: tank/data }',
  '  - { name: tank/backup }',
  'snapshot_tasks:',
  '  - { dataset: tank/data, naming_schema: "auto-%Y-%m-%d_%H-%M", lifetime: 2w, schedule: "0 * * * *" }',
  'replications:',
  '  - name: data-to-backup',
  '    transport: LOCAL',
  '    source_datasets: [tank/data]',
  '    target_dataset: tank/backup/data',
  '    periodic_snapshot_tasks: ["tank/data@auto-%Y-%m-%d_%H-%M"]',
  '    retention_policy: CUSTOM',
  '    lifetime: 1m',
  '    readonly: IGNORE',
  '  - name: nightly',
  '    transport: LOCAL',
  '    source_datasets: [tank/data]',
  '    target_dataset: tank/backup/nightly',
  '    also_include_naming_schema: ["night-%Y%m%d-%H%M"]',
  '    schedule: { minute: "30", hour: "2", begin: "01:00", end: "05:00" }',
  '    retention_policy: SOURCE',
  '',
].join('\n');

describe('replications in desired state (the built binary)', () => {
  it('makes a snapshot task and the replication binding it in one apply; the export applied to a fresh 26.0 target plans no change', async () => {
    const [a, b] = await Promise.all([target([]), target(['--emulate', 'truenas-26.0'])]);
    const state = file(STATE);
    const first = JSON.parse((await a(['apply', '-f', state, '--yes', '--json'])).stdout) as Applied;
    expect(outcome(first)).toEqual([
      'done create datasets tank/data',
      'done create datasets tank/backup',
      'done create snapshot_tasks tank/data@auto-%Y-%m-%d_%H-%M',
      'done create replications data-to-backup',
      'done create replications nightly',
    ]);
    await a(['plan', '-f', state]);
    const made = (
      JSON.parse((await a(['call', 'replication.query', '[["name", "=", "data-to-backup"]]'])).stdout) as Record<
        string,
        unknown
      >[]
    )[0]!;
    expect(made).toMatchObject({
      direction: 'PUSH',
      transport: 'LOCAL',
      recursive: false,
      auto: true,
      retention_policy: 'CUSTOM',
      lifetime_value: 1,
      lifetime_unit: 'MONTH',
      readonly: 'IGNORE',
    });
    expect((made.periodic_snapshot_tasks as { naming_schema: string }[]).map((t) => t.naming_schema)).toEqual([
      'auto-%Y-%m-%d_%H-%M',
    ]);

    // Changed by hand: drift, in the file's terms.
    await a([
      'call',
      'replication.update',
      String(made.id),
      '{"retention_policy": "NONE", "lifetime_value": null, "lifetime_unit": null}',
    ]);
    const drift = await a(['plan', '-f', state], 7);
    expect(drift.stdout).toContain('replication data-to-backup');
    expect(drift.stdout).toContain('retention_policy: NONE → CUSTOM');
    await a(['apply', '-f', state, '--yes']);
    await a(['plan', '-f', state]);

    const exported = (await a(['export', '--only', 'datasets,snapshot_tasks,replications'])).stdout;
    expect(exported).toContain('replications:');
    expect(exported).toContain('tank/data@auto-%Y-%m-%d_%H-%M');
    const copy = file(exported);
    const again = JSON.parse((await b(['apply', '-f', copy, '--yes', '--json'])).stdout) as Applied;
    expect(outcome(again).filter((r) => r.includes('replications'))).toEqual([
      'done create replications data-to-backup',
      'done create replications nightly',
    ]);
    await b(['plan', '-f', copy]);
    await b(['plan', '-f', state]);
    expect((await b(['export', '--only', 'datasets,snapshot_tasks,replications'])).stdout).toBe(exported);
  }, 180_000);

  it('--prune deletes a replication and the snapshot task it binds in one apply, the replication first; one made by hand stays', async () => {
    const run = await target([]);
    await run(['apply', '-f', file(STATE), '--yes']);
    await run([
      'call',
      'replication.create',
      JSON.stringify({
        name: 'by-hand',
        direction: 'PUSH',
        transport: 'LOCAL',
        source_datasets: ['tank/data'],
        target_dataset: 'tank/backup/hand',
        recursive: false,
        auto: false,
        retention_policy: 'NONE',
        also_include_naming_schema: ['hand-%Y%m%d%H%M'],
      }),
    ]);
    const fewer = file(STATE.split('snapshot_tasks:')[0]!);
    const pruned = JSON.parse((await run(['apply', '-f', fewer, '--prune', '--yes', '--json'])).stdout) as Applied;
    expect(outcome(pruned)).toEqual([
      'done delete replications data-to-backup',
      'done delete replications nightly',
      'done delete snapshot_tasks tank/data@auto-%Y-%m-%d_%H-%M',
    ]);
    const left = JSON.parse((await run(['call', 'replication.query'])).stdout) as { name: string }[];
    expect(left.map((r) => r.name)).toEqual(['by-hand']);
    expect(JSON.parse((await run(['call', 'pool.snapshottask.query'])).stdout)).toEqual([]);
    await run(['plan', '-f', fewer, '--prune']);
  }, 180_000);

  it("refuses a replication binding a snapshot task neither there nor in the file, in the appliance's words, before anything changes", async () => {
    const run = await target([]);
    const bad = file(
      STATE.replace(
        'snapshot_tasks:\n  - { dataset: tank/data, naming_schema: "auto-%Y-%m-%d_%H-%M", lifetime: 2w, schedule: "0 * * * *" }\n',
        '',
      ),
    );
    const refused = await run(['apply', '-f', bad, '--yes'], 1);
    expect(refused.stderr).toContain('replication_create.periodic_snapshot_tasks.0: This snapshot task does not exist');
    expect(JSON.parse((await run(['call', 'pool.dataset.query', '[["name", "=", "tank/data"]]'])).stdout)).toEqual([]);
  }, 120_000);
});
