import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { clientEnv, remoteEnv } from '../../helpers/client-env.js';
import { runBash } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** The recovery runbook, exactly as docs/COMMANDS.md shows it (the first sh block after its heading). */
function readmeRunbook(): string {
  const readme = readFileSync(new URL('../../../docs/COMMANDS.md', import.meta.url), 'utf8');
  const from = readme.indexOf('Recovery runbook (seed §5.6)');
  expect(from, 'docs/COMMANDS.md has the recovery runbook').toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  expect(block, 'the runbook is an sh block').not.toBeNull();
  return block![1]!;
}

/** Runs it in a fresh directory (alice.key lands there) and checks each step's outcome. */
async function runbook(env: Record<string, string>): Promise<void> {
  const work = tempDir('stor-recovery-');
  const script = readmeRunbook();
  expect(script).not.toMatch(/stor call\b/);
  const r = await runBash(`cd "$WORK"\n${script}`, { ...env, WORK: work });
  expect(r.code, r.stderr).toBe(0);
  const key = readFileSync(`${work}/alice.key`, 'utf8').trim();
  expect(key).toMatch(/^\d+-[A-Za-z0-9]{64}$/);
  // Locked out as the reports describe, found by check (exit 6), fixed, and alice is back.
  expect(r.stdout).toContain('alice is locked out (exit 4)');
  expect(r.stdout).toContain('findings (exit 6)');
  expect(r.stdout.trimEnd().split('\n')).toContain('username\talice');
  expect(r.stdout).toMatch(/\d+\tops\twould-fix\t/);
  expect(r.stdout).toMatch(/\d+\tops\tfixed\t/);
  // The key went to the file only.
  expect(`${r.stdout}${r.stderr}`).not.toContain(key.split('-')[1]!);
}

describe("the recovery runbook of docs/COMMANDS.md, with stor's verbs only", () => {
  it('against stor serve --role-expansion as-reported, from an empty state', async () => {
    const server = await spawnServe(tempDir(), ['--role-expansion', 'as-reported']);
    await runbook(remoteEnv(server));
  });

  it('on the embedded appliance with the same setting', async () => {
    const env = clientEnv();
    Appliance.open({ stateDir: env.STOR_HOME!, settings: { roleExpansion: 'as-reported' } }).close();
    await runbook(env);
  });
});
