import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { remoteEnv } from '../../helpers/client-env.js';

/*
 * A file of /proc says 0 bytes in its stat and has content when read. The embedded appliance
 * copies what it reads and then refuses the size it finds; over the network the body is sized by
 * the stat, so the file must be read for the byte that says it is not empty, not sent as empty.
 */
describe.skipIf(!existsSync('/proc/self/status'))('a file whose size says 0 bytes but has content', () => {
  it('is refused over ws and --rpc http with SIZE_MISMATCH, exit 1, and nothing is stored', async () => {
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const env = remoteEnv(server);
    for (const [name, args] of [
      ['ws', []],
      ['http', ['--rpc', 'http']],
    ] as const) {
      const r = await spawnStor([...args, '--json', 'upload', '/proc/self/status', `/mnt/tank/status-${name}`], {
        env,
      });
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      const error = (JSON.parse(r.stderr) as { error: { code: string; message: string } }).error;
      expect(error.code, name).toBe('SIZE_MISMATCH');
      expect(error.message, name).toBe('/proc/self/status had 0 bytes when the upload began and has content now');
      expect(existsSync(join(server.stateDir, 'mnt/tank', `status-${name}`)), name).toBe(false);
    }
    // A file that is empty goes as before.
    const empty = join(tempDir('stor-empty-'), 'empty');
    writeFileSync(empty, '');
    const r = await spawnStor(['upload', empty, '/mnt/tank/empty'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(server.stateDir, 'mnt/tank/empty'))).toHaveLength(0);
  });
});
