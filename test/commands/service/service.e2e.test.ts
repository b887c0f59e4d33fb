/**
 * The `stor service` walk on the embedded target (in-process) and through the built binary against
 * `stor serve` on port 0 (25.10.1 and 26.0): list, start (twice), stop with its question on a terminal, enable and
 * disable, each read back with list.
 */
import { describe, expect, it } from 'vitest';
import { storAgainstServe } from '../../helpers/release-targets.js';
import { storIn } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';

type Run = (args: string[], expectCode?: number) => Promise<{ stdout: string }>;
type Listed = { service: string; state: string; enable: boolean }[];

const listed = async (run: Run, name: string) =>
  (JSON.parse((await run(['service', 'list', '--json'])).stdout) as Listed).find((s) => s.service === name);

/** The walk, on whichever target `run` points at. */
async function serviceWalk(run: Run) {
  expect(await listed(run, 'nfs')).toEqual({ id: 9, service: 'nfs', state: 'STOPPED', enable: false });
  expect(JSON.parse((await run(['service', 'start', 'nfs', '--json'])).stdout)).toMatchObject({ changed: true });
  expect(JSON.parse((await run(['service', 'start', 'nfs', '--json'])).stdout)).toMatchObject({ changed: false });
  expect((await listed(run, 'nfs'))?.state).toBe('RUNNING');
  // Off a terminal a stop needs --yes (exit 2), and nothing is stopped.
  await run(['service', 'stop', 'nfs'], 2);
  expect((await listed(run, 'nfs'))?.state).toBe('RUNNING');
  await run(['service', 'enable', 'nfs']);
  expect(await listed(run, 'nfs')).toMatchObject({ state: 'RUNNING', enable: true });
  await run(['service', 'stop', 'nfs', '--yes']);
  await run(['service', 'disable', 'nfs']);
  expect(await listed(run, 'nfs')).toMatchObject({ state: 'STOPPED', enable: false });
}

describe('stor service: in-process on the embedded target, the built binary against stor serve', () => {
  it('walks list, start, stop, enable, disable on the embedded target; a stop asked on a terminal and declined stops nothing', async () => {
    const env = { STOR_HOME: tempDir() };
    // In-process (storIn, the same `run()` the binary calls): the walks against stor serve below are
    // the built binary's; the question on a terminal stays the binary's, in a pseudo-terminal.
    const run = storIn(env);
    await serviceWalk(run);
    // Service names complete from the target (completion/values.ts).
    const names = await run(['completion', '--values', 'service', '--prefix', 'n']);
    expect(names.stdout.split('\n').filter(Boolean)).toEqual(['nfs', 'nvmet']);
    await run(['service', 'start', 'cifs']);
    const declined = await answerOnTerminal(['service', 'stop', 'cifs'], env, 'n');
    expect(declined.shown).toContain('Stop cifs? SMB clients are disconnected until it is started again.');
    expect(declined.code).not.toBe(0);
    expect((await listed(run, 'cifs'))?.state).toBe('RUNNING');
    const accepted = await answerOnTerminal(['service', 'stop', 'cifs'], env, 'y');
    expect(accepted.code).toBe(0);
    expect((await listed(run, 'cifs'))?.state).toBe('STOPPED');
  }, 120_000);

  for (const emulate of ['truenas-25.10.1', 'truenas-26.0'])
    it(`walks the same against stor serve --emulate ${emulate}`, async () => {
      const run = await storAgainstServe(emulate);
      await serviceWalk(run);
    }, 120_000);
});
