import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stor } from '../helpers/runbook.js';
import { tempDir } from '../helpers/temp-dir.js';
import { answerOnTerminal } from '../helpers/terminal.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs `bin/stor` on a pseudo-terminal and answers "n" at its prompt; resolves with what the terminal showed. */
const declineOnTerminal = async (args: string[], env: Record<string, string>) =>
  (await answerOnTerminal(args, env, 'n')).shown;

describe.skipIf(!hasScript)('the safe first step, shown on a terminal before a destructive prompt', () => {
  it('dataset delete and privilege fix --all suggest their dry run; declining changes nothing', async () => {
    const home = tempDir();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
    const run = stor(env);
    await run(['dataset', 'create', 'tank/a']);
    const shown = await declineOnTerminal(['dataset', 'delete', 'tank/a'], env);
    expect(shown).toContain('Safe first step: preview with `stor dataset delete tank/a --dry-run`');
    expect(shown).toContain('nothing was changed');
    expect((await run(['dataset', 'list', '--json'])).stdout).toContain('"tank/a"');

    await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN,SHARING_READ']);
    const fix = await declineOnTerminal(['privilege', 'fix', '--all'], env);
    expect(fix).toContain('Safe first step: preview with `stor privilege fix --all --dry-run`');
    expect((await run(['privilege', 'show', 'ops', '--json'])).stdout).toContain('SHARING_READ');
  });

  it('is not shown with --dry-run or --yes, where nothing is asked', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = stor(env);
    await run(['dataset', 'create', 'tank/a']);
    expect((await run(['dataset', 'delete', 'tank/a', '--dry-run'])).stderr).not.toContain('Safe first step');
    expect((await run(['dataset', 'delete', 'tank/a', '--yes'])).stderr).not.toContain('Safe first step');
  });
});
