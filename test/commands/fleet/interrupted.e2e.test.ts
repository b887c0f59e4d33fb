/**
 * A `--targets` read stopped by SIGINT or SIGTERM while a target has not answered: every target
 * still out ends as interrupted, the `--json` array and the `--json-lines` summary are whole, and
 * the run exits 130 (143), in a process of its own and through the session agent alike.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { clientEnv } from '../../helpers/client-env.js';
import { importFleet, keyOf, streamStor } from '../../helpers/fleet.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { sessionEnv } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface Outcome {
  target: string;
  exit_code: number;
  error?: { code: string; kind: string; message: string };
}

/** A fleet of two, the second one's server stopped (SIGSTOP) so that its login waits. */
async function fleetWithOneHeld(env: Record<string, string>): Promise<void> {
  const [a, held] = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
  await importFleet(env, [
    { name: 'a', url: a.baseUrl, key: keyOf(a) },
    { name: 'held', url: held.baseUrl, key: keyOf(held) },
  ]);
  held.child.kill('SIGSTOP');
  onTestFinished(() => void held.child.kill('SIGCONT'));
}

describe('--targets interrupted', () => {
  for (const sessions of ['off', 'on'] as const)
    it(`SIGINT with sessions ${sessions}: the --json array is whole, the held target interrupted, exit 130`, async () => {
      const env = { ...clientEnv(), ...(sessions === 'on' ? sessionEnv().env : {}) };
      await fleetWithOneHeld(env);
      const run = streamStor(['--targets', 'a,held', 'whoami', '--json', '--timeout', '600'], env);
      // a's element is out (it comes first in list order) while held's login waits.
      while (!run.stdout().includes('"target": "a"')) expect(await run.line()).toBeDefined();
      run.kill('SIGINT');
      const { code, stderr } = await run.done;
      const outcomes = JSON.parse(run.stdout()) as Outcome[];
      expect(outcomes.map((o) => [o.target, o.exit_code])).toEqual([
        ['a', 0],
        ['held', 130],
      ]);
      expect(outcomes[1]!.error).toEqual({
        code: 'INTERRUPTED',
        kind: 'interrupted',
        message: 'interrupted by SIGINT before this target answered',
      });
      expect(code).toBe(130);
      expect(stderr).toBe('');
    });

  it('SIGTERM with --json-lines: a line for the held target, then the summary, exit 143', async () => {
    const env = clientEnv();
    await fleetWithOneHeld(env);
    const run = streamStor(['--targets', 'a,held', 'whoami', '--json-lines', '--timeout', '600'], env);
    expect(JSON.parse((await run.line())!)).toMatchObject({ target: 'a', exit_code: 0 });
    run.kill('SIGTERM');
    const held = JSON.parse((await run.line())!) as Outcome;
    const summary = JSON.parse((await run.line())!) as unknown;
    const { code } = await run.done;
    expect(held).toMatchObject({ target: 'held', exit_code: 143, error: { code: 'TERMINATED', kind: 'terminated' } });
    expect(summary).toEqual({ summary: { targets: 2, ok: 1, failed: 1, exit_code: 143 } });
    expect(code).toBe(143);
  });
});
