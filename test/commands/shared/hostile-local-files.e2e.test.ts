import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor, type SpawnResult } from '../../helpers/bin.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

// The built binary, since the unguarded failures are the process's own: V8 aborting with
// bad_alloc, or an open() that never returns. A run killed by the (generous) bound ends with a
// null exit code, which fails the test rather than hanging the suite.
const BOUND_MS = 60_000;

function fifo(): string {
  const path = join(tempDir(), 'fifo');
  execFileSync('mkfifo', [path]);
  return path;
}

function refused(r: SpawnResult): void {
  expect(r.code, r.stderr).toBe(2);
  expect(JSON.parse(r.stderr).error.code).toBe(E.LOCAL_FILE_REFUSED.code);
}

const envOf = () => ({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() });

describe.skipIf(process.platform === 'win32')('files named to stor are read only when small and regular', () => {
  it('--api-key-file on /dev/zero, /dev/urandom or a FIFO is refused at once (exit 2), not read until memory runs out or waited on', async () => {
    for (const file of ['/dev/zero', '/dev/urandom', fifo()]) {
      const env = envOf();
      const r = await spawnStor(['login', '--url', 'ws://127.0.0.1:9', '--api-key-file', file, '--json'], {
        env,
        killAfterMs: BOUND_MS,
      });
      refused(r);
      expect(JSON.parse(r.stderr).error.message).toContain(file);
      expect(existsSync(join(env.STOR_CONFIG_DIR, 'config.json'))).toBe(false);
    }
  });

  it('--api-key-stdin and key_stdin fed from /dev/zero are refused past 1 MB (exit 2), not read until memory runs out', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'fleet.yaml'), '- {name: nas1, url: ws://127.0.0.1:9, key_stdin: true}\n');
    for (const args of [
      ['login', '--url', 'ws://127.0.0.1:9', '--api-key-stdin'],
      ['profile', 'import', join(dir, 'fleet.yaml')],
    ]) {
      const env = envOf();
      refused(await spawnStor([...args, '--json'], { env, stdinFrom: '/dev/zero', killAfterMs: BOUND_MS }));
      expect(existsSync(join(env.STOR_CONFIG_DIR, 'config.json'))).toBe(false);
    }
  });

  it('--ca on /dev/zero or a FIFO is refused at once (exit 2), on any target', async () => {
    for (const file of ['/dev/zero', fifo()])
      refused(await spawnStor(['--ca', file, 'whoami', '--json'], { env: envOf(), killAfterMs: BOUND_MS }));
  });

  it('profile import of a list larger than 1 MB, or of a FIFO, is refused before parsing and saves nothing', async () => {
    const dir = tempDir();
    const big = join(dir, 'fleet.yaml');
    // A valid list, only too long: one entry repeated past the cap.
    writeFileSync(big, '- {name: nas1, url: ws://127.0.0.1:9, key_file: k}\n'.repeat(25_000));
    for (const file of [big, fifo()]) {
      const env = envOf();
      refused(await spawnStor(['profile', 'import', file, '--json'], { env, killAfterMs: BOUND_MS }));
      expect(existsSync(join(env.STOR_CONFIG_DIR, 'config.json'))).toBe(false);
    }
  });

  it('profile import whose key_file is /dev/zero or whose ca is a FIFO is refused (exit 2) and saves nothing', async () => {
    const dir = tempDir();
    const ca = fifo();
    writeFileSync(join(dir, 'key'), `1-${'a'.repeat(64)}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'zero.yaml'), '- {name: nas1, url: ws://127.0.0.1:9, key_file: /dev/zero}\n');
    writeFileSync(join(dir, 'fifo-ca.yaml'), `- {name: nas1, url: wss://nas.example, key_file: key, ca: ${ca}}\n`);
    for (const list of ['zero.yaml', 'fifo-ca.yaml']) {
      const env = envOf();
      refused(await spawnStor(['profile', 'import', join(dir, list), '--json'], { env, killAfterMs: BOUND_MS }));
      expect(existsSync(join(env.STOR_CONFIG_DIR, 'config.json'))).toBe(false);
    }
  });

  it('a FIFO in place of config.json is reported as an unreadable profiles file, not waited on', async () => {
    const env = envOf();
    execFileSync('mkfifo', [join(env.STOR_CONFIG_DIR, 'config.json')]);
    const r = await spawnStor(['profile', 'list', '--json'], { env, killAfterMs: BOUND_MS });
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error.code).toBe(E.CONFIG_UNREADABLE.code);
  });

  it('a key file of ordinary size is still read (the cap refuses only what cannot be a key)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'key'), `1-${'a'.repeat(64)}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'fleet.yaml'), '- {name: nas1, url: ws://127.0.0.1:9, key_file: key}\n');
    const r = await spawnStor(['profile', 'import', join(dir, 'fleet.yaml'), '--json'], {
      env: envOf(),
      killAfterMs: BOUND_MS,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).imported.map((p: { name: string }) => p.name)).toEqual(['nas1']);
  });
});
