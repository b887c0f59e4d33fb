import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { runBash } from '../helpers/runbook.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An operator's runbook under `set -euo pipefail`: every step that should succeed must exit 0
 * (or the script stops), and the steps that should fail are caught and their exit codes kept.
 */
const RUNBOOK = String.raw`
stor dataset create tank/logs/app --parents
stor dataset create tank/logs/app --parents
# Meanwhile someone makes a directory where b.log should land.
mkdir "$MNT/tank/logs/app/b.log"
stor ls /mnt/tank/many | head -1 > "$W/first-entry"
set +e
stor upload --mode 644 "$W/a.log" /mnt/tank/logs/app/ 2> "$W/mode.err"; echo "mode=$?" >> "$W/codes"
stor --json upload --mdoe 0644 "$W/a.log" /mnt/tank/logs/app/ 2> "$W/usage.json"; echo "usage=$?" >> "$W/codes"
stor --json upload "$W/a.log" "$W/b.log" "$W/c.log" /mnt/tank/logs/app/ > "$W/partial.json"; echo "partial=$?" >> "$W/codes"
set -e
echo DONE
`;

/** Runs the runbook against the appliance whose files are under `mnt`, with `env` choosing it. */
async function runbook(env: Record<string, string>, mnt: string): Promise<void> {
  const w = tempDir('stor-runbook-');
  for (const name of ['a.log', 'b.log', 'c.log']) writeFileSync(join(w, name), `${name}\n`.repeat(100));
  // A directory long enough to overflow the pipe to `head`, and a directory where b.log should land.
  mkdirSync(join(mnt, 'tank/many'));
  for (let i = 0; i < 1500; i++)
    writeFileSync(
      join(mnt, 'tank/many', `entry-with-a-long-name-to-fill-the-pipe-${String(i).padStart(5, '0')}.txt`),
      '',
    );
  const r = await runBash(RUNBOOK, { ...env, W: w, MNT: mnt });
  // Notes (a dataset that already exists, which files failed) but no stack trace, no EPIPE.
  expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trim().split('\n').at(-1)).toBe('DONE');

  expect(readFileSync(join(w, 'first-entry'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  const codes = Object.fromEntries(
    readFileSync(join(w, 'codes'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('=')),
  );
  // `--mode 644` is decimal 644 (0o1204, sticky): a usage error naming both forms; nothing uploaded.
  expect(codes.mode).toBe('2');
  expect(readFileSync(join(w, 'mode.err'), 'utf8')).toContain('0644');
  // A usage error under --json is a JSON document.
  expect(codes.usage).toBe('2');
  expect(JSON.parse(readFileSync(join(w, 'usage.json'), 'utf8'))).toMatchObject({
    error: { code: 'USAGE', kind: 'usage' },
  });
  // b.log's target is a directory: a.log and c.log land, b.log fails, exit 1.
  expect(codes.partial).toBe('1');
  const report = JSON.parse(readFileSync(join(w, 'partial.json'), 'utf8')) as {
    files: { source: string; outcome: string; error: { code: string } | null }[];
    summary: Record<string, number>;
  };
  expect(report.files.map((f) => [f.source.split('/').at(-1), f.outcome])).toEqual([
    ['a.log', 'done'],
    ['b.log', 'failed'],
    ['c.log', 'done'],
  ]);
  expect(report.files[1]!.error!.code).toBe('EFAULT');
  expect(report.summary).toMatchObject({ files: 3, done: 2, failed: 1, not_attempted: 0 });
  expect(readFileSync(join(mnt, 'tank/logs/app/c.log'), 'utf8')).toBe('c.log\n'.repeat(100));
}

describe('a runbook under set -euo pipefail can trust stor', () => {
  it('on the embedded appliance', async () => {
    const env = clientEnv();
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    await runbook(env, join(env.STOR_HOME!, 'mnt'));
  });

  it('against stor serve', async () => {
    const server = await spawnServe(tempDir());
    await runbook(remoteEnv(server), join(server.stateDir, 'mnt'));
  });
});
