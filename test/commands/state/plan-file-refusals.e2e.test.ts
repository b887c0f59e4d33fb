/**
 * `stor plan -f` refuses a file that is no state file (a FIFO, a device, one past 8 MB) before
 * reading it. The test failed before its fix. The built binary.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('stor plan -f on a file that is no state file', () => {
  it('a FIFO is refused at once (exit 2, LOCAL_FILE_REFUSED), not waited on forever; so is a regular file past 8 MB, before it is parsed', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'state.fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `stor_state: 1\n${'#'.repeat(9 * 1024 * 1024)}\n`);
    // No target needed: the file is read before any connection.
    const env = { ...clientEnv(), STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: `1-${'a'.repeat(64)}` };
    for (const path of [fifo, big, '/dev/zero']) {
      const r = await spawnStor(['plan', '-f', path, '--json'], { env, killAfterMs: 20_000 });
      expect(r.code, `${path}: ${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stderr).error.code).toBe('LOCAL_FILE_REFUSED');
    }
  });
});
