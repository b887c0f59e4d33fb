/**
 * `stor snapshot task` with `--targets` over `stor serve` stand-ins of 25.10.1 and 26.0: a create
 * fans out after one consent (rehearsed with --dry-run on each), list reads both, run takes on both.
 */
import { describe, expect, it } from 'vitest';
import { bothReleasesEnv } from '../../../helpers/release-targets.js';
import { runStor } from '../../../helpers/run-stor.js';

describe('stor snapshot task with --targets, on 25.10.1 and 26.0', () => {
  it('creates a task on both after one consent; list reads both; run takes a snapshot on each', async () => {
    const env = await bothReleasesEnv();
    const create = ['--targets', 'all', 'snapshot', 'task', 'create', 'tank', '--schedule', '* * * * *'];
    const refused = await runStor(create, { env });
    expect(refused.code).toBe(2);
    const made = await runStor([...create, '--yes', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const outcomes = JSON.parse(made.stdout) as { target: string; ok: boolean; data: { task: { id: number } } }[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data.task.id])).toEqual([
      ['nas1', true, 1],
      ['nas2', true, 1],
    ]);
    const listed = await runStor(['--targets', 'all', 'snapshot', 'task', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const lists = JSON.parse(listed.stdout) as { target: string; data: { id: number; dataset: string }[] }[];
    expect(lists.map((l) => [l.target, l.data.map((t) => `${t.id}:${t.dataset}`)])).toEqual([
      ['nas1', ['1:tank']],
      ['nas2', ['1:tank']],
    ]);
    const ran = await runStor(['--targets', 'all', 'snapshot', 'task', 'run', '1', '--yes', '--json'], { env });
    expect(ran.code, ran.stderr).toBe(0);
    const runs = JSON.parse(ran.stdout) as { target: string; data: { taken: string[] } }[];
    expect(runs.map((r) => [r.target, r.data.taken.length])).toEqual([
      ['nas1', 1],
      ['nas2', 1],
    ]);
  });
});
