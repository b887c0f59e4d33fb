import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

const KEY = `1-${'A'.repeat(64)}`;

/** A filesystem.listdir entry with the fields `download -r` reads (MW/api/v25_10_1/filesystem.py FilesystemListdirItem). */
const entry = (name: unknown, type: 'FILE' | 'DIRECTORY', size = 1) => ({
  name,
  type,
  size,
  mode: type === 'FILE' ? 0o100644 : 0o40755,
});

/** An appliance whose listing of each directory is `list(path)`; downloads are never reached. */
async function applianceListing(list: (path: string) => unknown[]) {
  return startStandinAppliance({
    'auth.login_with_api_key': { result: true },
    'filesystem.listdir': (params) => ({ result: list(String(params[0])) }),
  });
}

function downloadTree(baseUrl: string, local: string) {
  return spawnStor(['--url', baseUrl, '--timeout', '20', '--json', 'download', '-r', '/mnt/tank/d', local], {
    env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
  });
}

/** Exit 3, MALFORMED_ANSWER naming what it says, never "a bug in stor", and nothing written locally. */
function expectRefused(r: { code: number | null; stderr: string }, local: string, ...mentions: string[]) {
  expect(r.stderr).not.toContain('bug in stor');
  expect(r.code, r.stderr).toBe(3);
  const error = JSON.parse(r.stderr).error;
  expect(error).toMatchObject({ code: E.MALFORMED_ANSWER.code, kind: 'unreachable' });
  for (const m of mentions) expect(error.message).toContain(m);
  expect(readdirSync(local)).toEqual([]);
}

describe('download -r against a hostile listing', () => {
  it("an entry whose name holds a NUL (or a slash, or is ..) is refused as the appliance's fault, with its path", async () => {
    for (const name of ['a\u0000b', 'a/b', '..']) {
      const nas = await applianceListing((path) =>
        path === '/mnt/tank/d' ? [entry('ok', 'FILE'), entry(name, 'FILE')] : [],
      );
      const local = tempDir();
      const r = await downloadTree(nas.baseUrl, join(local, 'copy'));
      expectRefused(r, local, '/mnt/tank/d', JSON.stringify(name));
    }
  });

  it('the same name listed as a file and as a directory is refused, not one of them silently dropped', async () => {
    const nas = await applianceListing((path) =>
      path === '/mnt/tank/d' ? [entry('x', 'FILE'), entry('x', 'DIRECTORY')] : [],
    );
    const local = tempDir();
    const r = await downloadTree(nas.baseUrl, join(local, 'copy'));
    expectRefused(r, local, '/mnt/tank/d', 'twice', '"x"');
  });

  it('an endlessly deep tree stops at the deepest path the appliance can hold (PATH_MAX), before any file is written', async () => {
    const nas = await applianceListing(() => [entry('d'.repeat(200), 'DIRECTORY')]);
    const local = tempDir();
    const r = await downloadTree(nas.baseUrl, join(local, 'copy'));
    expectRefused(r, local, '/mnt/tank/d/ddd', '4096');
    // Bounded: it stopped after some tens of listings, not thousands.
    expect(nas.calls.filter((m) => m === 'filesystem.listdir').length).toBeLessThan(100);
  });

  it('a tree of more entries than the cap is refused with TREE_TOO_LARGE before anything is written', async () => {
    const dirs = Array.from({ length: 101 }, (_, i) => entry(`dir${i}`, 'DIRECTORY'));
    const files = Array.from({ length: 1000 }, (_, i) => entry(`file${i}`, 'FILE'));
    const nas = await applianceListing((path) => (path === '/mnt/tank/d' ? dirs : files));
    const local = tempDir();
    const r = await downloadTree(nas.baseUrl, join(local, 'copy'));
    expect(r.stderr).not.toContain('bug in stor');
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: E.TREE_TOO_LARGE.code, kind: 'failed' });
    expect(JSON.parse(r.stderr).error.message).toContain('/mnt/tank/d');
    expect(readdirSync(local)).toEqual([]);
  });
});
