import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitJob } from '../../../src/core/transport/job-wait.js';
import { adminTransport, startTestServer } from '../../helpers/server.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('awaitJob', () => {
  it('leaves no poll pending once it was told the job ended: a back-off timer would hold the exit of the process', async () => {
    const server = await startTestServer();
    const transport = await adminTransport(server);
    writeFileSync(join(server.stateDir, 'mnt', 'tank', 'a.txt'), 'some bytes\n');
    // core.download's filesystem.get runs until its URL is fetched, which it never is here.
    const [id] = await transport.call<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.txt'],
      'a.txt',
    ]);
    const before = timers();
    let polls = 0;
    let tell: () => void = () => undefined;
    const told = new Promise<void>((resolve) => (tell = resolve));
    await awaitJob(
      {
        // The appliance's own answers; the end of the job is told as soon as the first poll has
        // seen it running, so that the poll loop is about to wait before its next look.
        call: async <T>(method: string, params: readonly unknown[]) => {
          const answer = await transport.call<T>(method, params);
          if (method === 'core.get_jobs' && ++polls === 1) tell();
          return answer;
        },
        ended: () => told,
      },
      id,
      30,
    );
    // The poll loop's own continuation runs after awaitJob has returned: look once it has.
    await new Promise((resolve) => setImmediate(resolve));
    expect(polls).toBe(1);
    // At most as many as before: a timer of something else in this worker (the suite shares one
    // process between files) may end meanwhile; the back-off timer left pending would be one more.
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
