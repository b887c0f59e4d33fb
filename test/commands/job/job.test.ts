import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface Job {
  id: number;
  method: string;
  state: string;
}

/** A `stor serve`-style server in this process (jobs outlive the command there, unlike the embedded target's) and stor run against it. */
async function served() {
  const server = await startTestServer();
  const env = {
    STOR_HOME: tempDir(),
    STOR_CONFIG_DIR: tempDir(),
    STOR_URL: server.url,
    STOR_API_KEY: server.adminKey,
    STOR_USER: 'truenas_admin',
  };
  const run = (args: string[]) => runStor(args, { env });
  const json = async (args: string[]) => {
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const local = join(tempDir(), 'a.txt');
  writeFileSync(local, 'some bytes\n');
  return { run, json, local };
}

describe('stor job list, show, wait and abort', () => {
  it("an upload's job: listed by method, shown with its arguments, waited for at once, and left as it is by abort", async () => {
    const { run, json, local } = await served();
    expect((await run(['upload', local, '/mnt/tank/'])).code).toBe(0);
    const puts: Job[] = await json(['job', 'list', '--method', 'filesystem.put', '--json']);
    expect(puts.map((j) => [j.method, j.state])).toEqual([['filesystem.put', 'SUCCESS']]);
    const id = String(puts[0]!.id);
    expect(await json(['job', 'show', id, '--json'])).toMatchObject({
      id: puts[0]!.id,
      method: 'filesystem.put',
      state: 'SUCCESS',
      arguments: ['/mnt/tank/a.txt', { append: false }],
    });
    expect(await json(['job', 'wait', id, '--json'])).toMatchObject({ id: puts[0]!.id, state: 'SUCCESS' });
    // The appliance leaves a finished job as it is (MW/job.py:502-506).
    expect(await json(['job', 'abort', id, '--json'])).toMatchObject({
      id: puts[0]!.id,
      state: 'SUCCESS',
      aborted: false,
    });
  });

  it('a running job: abort asks first, then aborts it, and a wait for it is JOB_ABORTED; a job that is not there is NOT_FOUND', async () => {
    const { run, json, local } = await served();
    await run(['upload', local, '/mnt/tank/']);
    // core.download's filesystem.get waits for the GET of its URL, which never comes.
    const [started] = (await json(['call', 'core.download', 'filesystem.get', '["/mnt/tank/a.txt"]', 'a.txt'])) as [
      number,
      string,
    ];
    expect(await json(['job', 'list', '--state', 'RUNNING', '--json'])).toMatchObject([
      { id: started, state: 'RUNNING' },
    ]);
    expect((await run(['job', 'abort', String(started)])).code).toBe(2);
    expect(await json(['job', 'abort', String(started), '--yes', '--json'])).toMatchObject({
      id: started,
      state: 'ABORTED',
      aborted: true,
    });
    const waited = await run(['job', 'wait', String(started), '--json']);
    expect(waited.code).toBe(1);
    expect(JSON.parse(waited.stderr).error.code).toBe('JOB_ABORTED');
    const missing = await run(['job', 'show', '9999', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('no job 9999'),
    });
  });
});
