/**
 * Patterns that a backtracking engine takes hours over, through the built binary on the embedded
 * appliance: a replication's `name_regex` of nested repetitions (status, the eligible count, a run)
 * and a snapshot task's `exclude` glob of many stars, each against a long name it does not match.
 * The emulator answers each in time linear in the name (python-regex.ts, fnmatch.ts); before, each
 * command below never returned. A run is killed after two minutes, which fails the test instead of
 * stalling the suite; no figure of speed is asserted.
 */
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { localPush } from '../../helpers/replication-spec.js';
import { storIn } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

const HANG_BOUND_MS = 120_000;
// A ZFS snapshot's full name stays under 256 characters (ZFS_MAX_DATASET_NAME_LEN).
const LONG = `${'a'.repeat(200)}b`;

describe('patterns that backtrack for hours elsewhere answer', () => {
  it('a name_regex of nested repetitions: replication status, count_eligible_manual_snapshots and a run', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = storIn(env);
    await run(['dataset', 'create', 'tank/src']);
    await run(['dataset', 'create', 'tank/dst']);
    await run(['snapshot', 'create', `tank/src@${LONG}`]);
    await run(['snapshot', 'create', 'tank/src@aaaa']);
    const task = localPush({ name: 'r', periodic_snapshot_tasks: [], name_regex: '(a+)+' });
    await run(['call', 'replication.create', JSON.stringify(task)]);

    const status = await spawnStor(['replication', 'status', 'r', '--json'], { env, killAfterMs: HANG_BOUND_MS });
    expect(status.code, status.stderr).toBe(0);
    const [r] = JSON.parse(status.stdout) as { datasets: { source_newest: string | null }[] }[];
    expect(r!.datasets[0]!.source_newest).toBe('tank/src@aaaa');

    const counted = await spawnStor(
      [
        'call',
        'replication.count_eligible_manual_snapshots',
        JSON.stringify({ datasets: ['tank/src'], name_regex: '(a+)+', transport: 'LOCAL' }),
      ],
      { env, killAfterMs: HANG_BOUND_MS },
    );
    expect(counted.code, counted.stderr).toBe(0);
    expect(JSON.parse(counted.stdout)).toEqual({ total: 2, eligible: 1 });

    // A reference keeps a pattern off RE2: on JavaScript's engine it is stopped, and said so, rather
    // than left to backtrack (python-regex.ts, boundedTest).
    const referenced = await spawnStor(
      [
        'call',
        'replication.count_eligible_manual_snapshots',
        JSON.stringify({ datasets: ['tank/src'], name_regex: '(?P<x>a)(a+)+b(?P=x)', transport: 'LOCAL' }),
      ],
      { env, killAfterMs: HANG_BOUND_MS },
    );
    expect(referenced.code).not.toBe(0);
    expect(referenced.stderr).toMatch(
      /name_regex "\(\?P<x>a\)\(a\+\)\+b\(\?P=x\)" backtracks without end on "a{200}b"/,
    );

    const ran = await spawnStor(['replication', 'run', 'r'], { env, killAfterMs: HANG_BOUND_MS });
    expect(ran.code, ran.stderr).toBe(0);
    const onTarget = await run(['snapshot', 'list', 'tank/dst', '--json']);
    expect((JSON.parse(onTarget.stdout) as { name: string }[]).map((s) => s.name)).toEqual(['aaaa']);
  });

  it('an exclude glob of many stars: a recursive snapshot task run leaves out only what it names', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = storIn(env);
    await run(['dataset', 'create', 'tank/src']);
    await run(['dataset', 'create', `tank/src/${'a'.repeat(120)}`]);
    await run(['dataset', 'create', `tank/src/${'a'.repeat(12)}b`]);
    const exclude = `tank/src/${'*a'.repeat(12)}*b`;
    const created = await run([
      'call',
      'pool.snapshottask.create',
      JSON.stringify({
        dataset: 'tank/src',
        recursive: true,
        exclude: [exclude],
        naming_schema: 'auto-%Y-%m-%d_%H-%M',
        lifetime_value: 1,
        lifetime_unit: 'WEEK',
        schedule: { minute: '0', hour: '0' },
      }),
    ]);
    const { id } = JSON.parse(created.stdout) as { id: number };
    const ran = await spawnStor(['call', 'pool.snapshottask.run', String(id)], { env, killAfterMs: HANG_BOUND_MS });
    expect(ran.code, ran.stderr).toBe(0);
    const listed = await run(['snapshot', 'list', 'tank/src', '-r', '--json']);
    const datasets = (JSON.parse(listed.stdout) as { dataset: string }[]).map((s) => s.dataset).sort();
    expect(datasets).toEqual(['tank/src', `tank/src/${'a'.repeat(120)}`]);
  });
});
