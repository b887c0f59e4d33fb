/**
 * `stor snapshot task` with the built binary on the embedded appliance: create → list → run →
 * `snapshot list` shows what the run took → delete, which shows the snapshots the task leaves to
 * no task's retention on the terminal before its question, and deletes only when told yes.
 */
import { describe, expect, it } from 'vitest';
import { stor } from '../../../helpers/runbook.js';
import { answerOnTerminal } from '../../../helpers/terminal.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const json = async <T>(p: Promise<{ stdout: string }>): Promise<T> => JSON.parse((await p).stdout) as T;

describe('stor snapshot task (built binary)', () => {
  it('create, list, run, see the snapshot, delete after the retention preview and a yes', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = stor(env);
    await run(['dataset', 'create', 'tank/a']);
    const created = await json<{ task: { id: number } }>(
      run(['snapshot', 'task', 'create', 'tank/a', '--lifetime', '2w', '--schedule', '* * * * *', '--json']),
    );
    const id = String(created.task.id);
    expect(await json(run(['snapshot', 'task', 'list', '--json']))).toEqual([
      expect.objectContaining({
        id: created.task.id,
        dataset: 'tank/a',
        lifetime_value: 2,
        lifetime_unit: 'WEEK',
        schedule: expect.objectContaining({ minute: '*', hour: '*' }),
        state: { state: 'PENDING' },
      }),
    ]);
    const ran = await json<{ taken: string[]; state: string }>(run(['snapshot', 'task', 'run', id, '--json']));
    expect(ran.state).toBe('FINISHED');
    expect(ran.taken).toHaveLength(1);
    const snapshots = await json<{ id: string }[]>(run(['snapshot', 'list', 'tank/a', '--json']));
    expect(snapshots.map((s) => s.id)).toEqual(ran.taken);

    const declined = await answerOnTerminal(['snapshot', 'task', 'delete', id], env, 'n');
    expect(declined.code).not.toBe(0);
    const preview = declined.shown.indexOf(`  ${ran.taken[0]}`);
    expect(preview).toBeGreaterThan(-1);
    expect(preview).toBeLessThan(declined.shown.indexOf('(y/N)'));
    expect(await json(run(['snapshot', 'task', 'list', '--json']))).toHaveLength(1);

    const agreed = await answerOnTerminal(['snapshot', 'task', 'delete', id], env, 'y');
    expect(agreed.code, agreed.shown).toBe(0);
    expect(agreed.shown.indexOf(`  ${ran.taken[0]}`)).toBeLessThan(agreed.shown.indexOf('(y/N)'));
    expect(await json(run(['snapshot', 'task', 'list', '--json']))).toEqual([]);
    // The task goes; its snapshot stays.
    expect((await json<{ id: string }[]>(run(['snapshot', 'list', 'tank/a', '--json']))).map((s) => s.id)).toEqual(
      ran.taken,
    );
  });
});
