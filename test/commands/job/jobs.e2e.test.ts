import { describe, expect, it } from 'vitest';
import { localFile, remoteEnv } from '../../helpers/client-env.js';
import { stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

const json = async (p: Promise<{ stdout: string }>) => JSON.parse((await p).stdout);

interface Job {
  id: number;
  method: string;
  state: string;
  error: string | null;
}

describe('stor job', () => {
  it('lists, shows, waits for and aborts the jobs of stor serve', async () => {
    const server = await spawnServe(tempDir());
    // The commands run in-process (storIn, the same `run()` the binary calls): they are about what
    // the job verbs answer of the server's jobs. A waited job's outcome as the exit code goes
    // through the built binary too.
    const env = remoteEnv(server);
    const run = storIn(env);
    await run(['upload', localFile('a.txt', 'some bytes\n'), '/mnt/tank/']);
    // A parent that is a file: filesystem.put fails in its job (ENOTDIR), and upload exits 1.
    await run(['upload', localFile('b.txt', 'more\n'), '/mnt/tank/a.txt/b.txt'], 1);

    const puts: Job[] = await json(run(['job', 'list', '--method', 'filesystem.put', '--json']));
    expect(puts.map((j) => [j.method, j.state])).toEqual([
      ['filesystem.put', 'SUCCESS'],
      ['filesystem.put', 'FAILED'],
    ]);
    const [done, failed] = puts as [Job, Job];
    expect(failed.error).toContain('Not a directory');
    expect((await json(run(['job', 'list', '--state', 'FAILED', '--json']))).map((j: Job) => j.id)).toContain(
      failed.id,
    );

    const shown = await json(run(['job', 'show', String(done.id), '--json']));
    expect(shown).toMatchObject({
      id: done.id,
      method: 'filesystem.put',
      state: 'SUCCESS',
      percent: 100,
      arguments: ['/mnt/tank/a.txt', { append: false }],
      result: true,
    });
    expect(new Date(shown.finished).getTime()).toBeGreaterThanOrEqual(new Date(shown.started).getTime());

    // Waiting for a finished job answers at once, its exit code the job's outcome.
    expect(await json(run(['job', 'wait', String(done.id), '--json']))).toMatchObject({
      id: done.id,
      state: 'SUCCESS',
    });
    const waitedFailed = await stor(env)(['job', 'wait', String(failed.id)], 1);
    expect(waitedFailed.stderr).toContain("Not a directory: '/mnt/tank/a.txt/b.txt'");

    // The appliance leaves a finished job as it is (MW/job.py:502-506): nothing to ask, nothing done.
    const finished = await run(['job', 'abort', String(done.id), '--json']);
    expect(JSON.parse(finished.stdout)).toMatchObject({ id: done.id, state: 'SUCCESS', aborted: false });

    // A running job: core.download's filesystem.get waits for the GET of its URL, which never comes.
    const [started] = (await json(
      run(['call', 'core.download', 'filesystem.get', '["/mnt/tank/a.txt"]', 'a.txt']),
    )) as [number, string];
    expect(await json(run(['job', 'list', '--state', 'RUNNING', '--json']))).toMatchObject([
      { id: started, method: 'filesystem.get', state: 'RUNNING' },
    ]);
    expect((await run(['job', 'abort', String(started)], 2)).stderr).toContain('--yes');
    expect(await json(run(['job', 'abort', String(started), '--yes', '--json']))).toMatchObject({
      id: started,
      state: 'ABORTED',
      aborted: true,
    });
    const waitedAborted = await run(['job', 'wait', String(started), '--json'], 1);
    expect(JSON.parse(waitedAborted.stderr).error).toMatchObject({ code: 'JOB_ABORTED' });

    const missing = await run(['job', 'show', '9999', '--json'], 1);
    expect(JSON.parse(missing.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('no job 9999'),
    });
  });

  it('on the embedded target says jobs end with the command that ran them; a bad id is a usage error', async () => {
    const home = tempDir();
    const run = stor({ STOR_HOME: home, STOR_CONFIG_DIR: tempDir() });
    await run(['upload', localFile('a.txt', 'some bytes\n'), '/mnt/tank/']);
    const listed = await run(['job', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    const human = await run(['job', 'list']);
    expect(human.stderr).toContain('The embedded appliance keeps jobs only while the command that started them runs');
    expect((await run(['job', 'show', '1'], 1)).stderr).toContain('no job 1 on the appliance');
    const bad = await run(['job', 'wait', 'twelve'], 2);
    expect(bad.stderr).toContain('a job id is a whole number from 1, not "twelve"');
  });
});
