import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/cli.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import type { IO } from '../../../src/commands/output/io.js';
import { PercentBar } from '../../../src/commands/output/progress.js';
import { clientEnv } from '../../helpers/client-env.js';
import { loggedInWs, startTestServer } from '../../helpers/server.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

describe('stor job wait', () => {
  it("shows a running job's progress on a terminal and waits until it ends, then exits 0 with its final state", async () => {
    const server = await startTestServer();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    writeFileSync(join(server.stateDir, 'mnt/tank/a.txt'), 'the bytes\n');
    // core.download's filesystem.get job runs until its URL is fetched.
    const [id, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.txt'],
      'a.txt',
    ]);
    let stdout = '';
    let stderr = '';
    let barDrawn: () => void = () => undefined;
    const drawn = new Promise<void>((resolve) => (barDrawn = resolve));
    const stdin = Object.assign(Readable.from([]), { isTTY: true }) as IO['stdin'];
    const io: IO = {
      stdout: { write: (s: string) => (stdout += s), isTTY: true, columns: 100 },
      color: { stdout: 0, stderr: 0 },
      stderr: {
        write: (s: string) => {
          stderr += s;
          if (stderr.includes(`job ${id} [`)) barDrawn();
          return true;
        },
        isTTY: true,
      },
      stdin,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
        NO_COLOR: '1',
        ...clientEnv(),
        STOR_URL: server.url.replace(/^http/, 'ws'),
        STOR_API_KEY: server.adminKey,
      },
      cwd: process.cwd(),
    };
    const waiting = run(readCommandLine(['job', 'wait', String(id)]), io);
    // Only once the bar shows the job RUNNING does the job get what it waits for.
    await drawn;
    expect(stderr).toContain(`job ${id} [${' '.repeat(24)}]   0%`);
    expect(await (await fetch(`${server.url}${url}`)).text()).toBe('the bytes\n');
    expect(await waiting, stderr).toBe(0);
    expect(stdout).toMatch(new RegExp(`^id: +${id}$`, 'm'));
    expect(stdout).toMatch(/^state: +SUCCESS$/m);
    // The bar is cleared before the result is printed.
    expect(stderr.endsWith('\r\x1b[2K')).toBe(true);
  });
});

describe('PercentBar', () => {
  it('draws the percentage and description on one line, redraws only on change, and clears it', () => {
    let out = '';
    const bar = new PercentBar({ write: (s: string) => (out += s) } as never, 'job 7');
    bar.update(50, 'copying');
    expect(out).toBe(`\r\x1b[2Kjob 7 [${'#'.repeat(12)}${' '.repeat(12)}]  50% copying`);
    bar.update(50, 'copying');
    expect(out.split('\r').length).toBe(2);
    bar.update(null, null);
    expect(out.endsWith(`job 7 [${' '.repeat(24)}]   ?%`)).toBe(true);
    bar.clear();
    expect(out.endsWith('\r\x1b[2K')).toBe(true);
  });
});
