import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../helpers/bin.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Runs `script` in `bash -c` with `stor` as a function around the built binary. */
function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `stor() { node "$STOR_BIN" "$@"; }\nset -euo pipefail\n${script}`], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_BIN, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a reader that closes stdout early (EPIPE)', () => {
  it('ends `stor ls … | head -1` with exit 0 and nothing on stderr under set -euo pipefail', async () => {
    const home = tempDir();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
    // The first command seeds the state; then a directory whose listing is far above a pipe's 64 KiB.
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    const dir = join(home, 'mnt', 'tank', 'many');
    mkdirSync(dir);
    for (let i = 0; i < 1500; i++) writeFileSync(join(dir, `a-rather-long-file-name-to-fill-the-pipe-buffer-${String(i).padStart(5, '0')}.log`), '');
    const full = await bash('stor ls /mnt/tank/many | wc -c', env);
    expect(Number(full.stdout.trim()), full.stderr).toBeGreaterThan(64 * 1024);

    const r = await bash('stor ls /mnt/tank/many | head -1', env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('ends a large `stor call` quietly too, and says nothing when stderr is the closed pipe', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await bash('stor call core.get_methods | head -c 10 > /dev/null; stor call core.get_methods 2>&1 | true; echo DONE', env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('DONE\n');
  });
});
