import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { STOR_BIN } from '../../helpers/bin.js';
import { stor } from '../../helpers/runbook.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

async function overlapping() {
  const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
  const run = stor(env);
  expect((await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN,SHARING_READ', '--force'])).code).toBe(0);
  return { env, run };
}

/** What the terminal showed before the question first appeared, and after it was last redrawn (the prompt redraws it as it is answered). */
function aroundQuestion(shown: string): [string, string] {
  const q = 'Rewrite the roles of 1 privilege?';
  return [shown.slice(0, shown.indexOf(q)), shown.slice(shown.lastIndexOf(q) + q.length)];
}

const ROW = /\bops\b.*SHARING_READ \(included by READONLY_ADMIN\)/;

describe.skipIf(!hasScript)('privilege fix: the preview above its question says what would happen', () => {
  it('answered no: the preview says would-fix, nothing on the screen says fixed, the roles stay', async () => {
    const { env, run } = await overlapping();
    const r = await answerOnTerminal(['privilege', 'fix', 'ops'], env, 'n');
    const [preview, after] = aroundQuestion(r.shown);
    expect(preview).toMatch(/\bops\s+would-fix\b/);
    expect(preview).toMatch(/WOULD DROP/i);
    expect(r.shown).not.toMatch(/\bfixed\b/i);
    expect(after).toContain('nothing was changed');
    expect(r.code).toBe(1);
    expect(JSON.parse((await run(['--json', 'privilege', 'show', 'ops'])).stdout).listed_roles).toEqual([
      'READONLY_ADMIN',
      'SHARING_READ',
    ]);
  });

  it('answered yes: would-fix above the question, fixed once below it', async () => {
    const { env } = await overlapping();
    const r = await answerOnTerminal(['privilege', 'fix', 'ops'], env, 'y');
    const [preview, after] = aroundQuestion(r.shown);
    expect(preview).toMatch(/\bops\s+would-fix\b/);
    expect(preview).not.toMatch(/\bfixed\b/);
    expect(after.match(/\bops\s+fixed\b/g)).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('--yes, piped: the result once, on stdout; stderr does not repeat it', async () => {
    const { run } = await overlapping();
    const r = await run(['privilege', 'fix', 'ops', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\tops\tfixed\tSHARING_READ \(included by READONLY_ADMIN\)\tREADONLY_ADMIN\t/);
    expect(r.stdout.split('\n').filter((l) => ROW.test(l))).toHaveLength(1);
    expect(r.stderr).not.toMatch(ROW);
  });
});

describe.skipIf(!hasScript)('privilege check on a terminal: what to run next is below the table it refers to', () => {
  it('`next: stor privilege fix N` comes after the row of privilege N', async () => {
    const { env } = await overlapping();
    const command = [process.execPath, STOR_BIN, 'privilege', 'check'].map((a) => `'${a}'`).join(' ');
    const shown = spawnSync('script', ['-qfec', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
        NO_COLOR: '1',
        TERM: 'dumb',
        ...env,
      },
      encoding: 'utf8',
    }).stdout;
    const row = shown.search(/\n\s*\d+\s+ops\s+warning/);
    const next = shown.indexOf('next: stor privilege fix ');
    expect(row).toBeGreaterThan(0);
    expect(next).toBeGreaterThan(row);
  });
});
