import { describe, expect, it } from 'vitest';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

describe('system info uptime', () => {
  it('a terminal shows it as a person says it; --json and piped output keep the appliance text', async () => {
    const env = clientEnv();
    const tty = await runStor(['system', 'info'], { env, tty: true, color: 0 });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/^uptime:\s+(\d+ (days?|h|min|s))( \d+ (h|min|s))?$/m);
    const json = JSON.parse((await runStor(['system', 'info', '--json'], { env })).stdout) as {
      uptime: string;
      uptime_seconds: number;
    };
    expect(json.uptime).toMatch(/^(\d+ days?, )?\d+:\d\d:\d\d(\.\d{6})?$/);
    expect((await runStor(['system', 'info'], { env })).stdout).toMatch(/^uptime\t(\d+ days?, )?\d+:\d\d:\d\d/m);
  });
});
