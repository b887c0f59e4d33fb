import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { runBash } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('a reader that closes stdout early (EPIPE)', () => {
  it('ends `stor ls … | head -1` with exit 0 and nothing on stderr under set -euo pipefail', async () => {
    const home = tempDir();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
    // The first command seeds the state; then a directory whose listing is far above a pipe's 64 KiB.
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    const dir = join(home, 'mnt', 'tank', 'many');
    mkdirSync(dir);
    for (let i = 0; i < 1500; i++)
      writeFileSync(join(dir, `a-rather-long-file-name-to-fill-the-pipe-buffer-${String(i).padStart(5, '0')}.log`), '');
    const full = await runBash('stor ls /mnt/tank/many | wc -c', env);
    expect(Number(full.stdout.trim()), full.stderr).toBeGreaterThan(64 * 1024);

    const r = await runBash('stor ls /mnt/tank/many | head -1', env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('ends a large `stor call` quietly too, and says nothing when stderr is the closed pipe', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runBash(
      'stor call core.get_methods | head -c 10 > /dev/null; stor call core.get_methods 2>&1 | true; echo DONE',
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('DONE\n');
  });

  it('a stdout that cannot be written (a full disk) ends with exit 1 and one line, not a stack trace', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runBash('stor ls /mnt/tank > /dev/full', env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('stor: cannot write to standard output: ENOSPC\n');
  });

  // bin-entry.ts makes process.stdout and process.stderr, and watches them, once a head start's
  // login frame is written: a remote read ends the same way.
  it('so does a remote whoami, whose head start logs in before stdout is made', async () => {
    const serve = await spawnServe(tempDir());
    const env = {
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_SESSION: 'off',
      STOR_URL: serve.url,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    };
    const full = await runBash('stor whoami > /dev/full', env);
    expect(full.code).toBe(1);
    expect(full.stderr).toBe('stor: cannot write to standard output: ENOSPC\n');
    const closed = await runBash('stor whoami | head -c 1 >/dev/null', env);
    expect(closed.code).toBe(0);
    expect(closed.stderr).toBe('');
  });
});
