import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { STOR_BIN } from '../helpers/bin.js';
import { stor } from '../helpers/runbook.js';
import { tempDir } from '../helpers/temp-dir.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs `bin/stor` on a pseudo-terminal (util-linux `script`) and answers "n" at its prompt; resolves with what the terminal showed. */
function declineOnTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const command = [process.execPath, STOR_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', TERM: 'dumb', ...env } });
  let shown = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    shown += d;
    if (!answered && shown.includes('(y/N)')) {
      answered = true;
      child.stdin.write('n\r');
    }
  });
  return new Promise((resolve) => child.on('close', () => resolve(shown)));
}

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
