import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A fresh embedded appliance holding /mnt/tank/t/{f.txt (2 KiB), sub/g.txt}. */
function setup() {
  const home = tempDir('stor-home-');
  Appliance.open({ stateDir: home }).close();
  const pool = join(home, 'mnt/tank');
  mkdirSync(join(pool, 't/sub'), { recursive: true });
  writeFileSync(join(pool, 't/f.txt'), 'x'.repeat(2048));
  writeFileSync(join(pool, 't/sub/g.txt'), 'gamma\n');
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-') };
  return {
    pool,
    local: tempDir('stor-local-'),
    stor: (argv: string[], o: { tty?: boolean } = {}) => runStor(argv, { env, ...o }),
  };
}

const errorOf = (stderr: string) => JSON.parse(stderr).error as { code: string; message: string };

describe('stor download -r: local conflicts are checked before any transfer', () => {
  it('a local file where a remote subdirectory goes: LOCAL_FILE_EXISTS (exit 2), not INTERNAL, and nothing written', async () => {
    const { local, stor } = setup();
    writeFileSync(join(local, 'sub'), 'mine');
    const r = await stor(['download', '-r', '/mnt/tank/t', local, '--json']);
    expect(errorOf(r.stderr)).toMatchObject({
      code: 'LOCAL_FILE_EXISTS',
      message: `${join(local, 'sub')} exists and is not a directory; a remote directory goes there`,
    });
    expect(r.code).toBe(2);
    expect(readdirSync(local)).toEqual(['sub']);
    expect(readFileSync(join(local, 'sub'), 'utf8')).toBe('mine');
  });

  it('a local directory where a remote file goes: LOCAL_FILE_EXISTS (exit 2), even with --force, and nothing written', async () => {
    const { local, stor } = setup();
    mkdirSync(join(local, 'f.txt'));
    for (const force of [[], ['--force']]) {
      const r = await stor(['download', '-r', '/mnt/tank/t', local, '--json', ...force]);
      expect(errorOf(r.stderr)).toMatchObject({
        code: 'LOCAL_FILE_EXISTS',
        message: `${join(local, 'f.txt')} is a directory; the remote file /mnt/tank/t/f.txt goes there`,
      });
      expect(r.code).toBe(2);
      expect(readdirSync(local)).toEqual(['f.txt']);
    }
  });

  it('an existing local file is refused without --force (as a single download), replaced with it', async () => {
    const { local, stor } = setup();
    mkdirSync(join(local, 'sub'));
    writeFileSync(join(local, 'sub/g.txt'), 'old\n');
    const refused = await stor(['download', '-r', '/mnt/tank/t', local, '--json']);
    expect(errorOf(refused.stderr)).toMatchObject({
      code: 'LOCAL_FILE_EXISTS',
      message: `${join(local, 'sub/g.txt')} exists`,
    });
    expect(refused.code).toBe(2);
    expect(readdirSync(local)).toEqual(['sub']);
    expect(readFileSync(join(local, 'sub/g.txt'), 'utf8')).toBe('old\n');

    const forced = await stor(['download', '-r', '/mnt/tank/t', local, '--force', '--json']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).summary).toMatchObject({ files: 2, done: 2 });
    expect(readFileSync(join(local, 'sub/g.txt'), 'utf8')).toBe('gamma\n');
    expect(readdirSync(local).sort()).toEqual(['f.txt', 'sub']);
  });

  it('on a terminal the report shows sizes for people and the outcome toned as in the upload report; piped, exact bytes', async () => {
    const { local, stor } = setup();
    const tty = await stor(['download', '-r', '/mnt/tank/t', join(local, 'a')], { tty: true });
    expect(tty.code, tty.stderr).toBe(0);
    const row = tty.stdout.split('\n').find((l) => l.includes('f.txt'))!;
    // Green, as upload's outcomes (runStor's terminal takes basic colour).
    expect(row).toMatch(/\u001b\[32mdone\u001b\[39m +2\.0 KiB$/);
    const piped = await stor(['download', '-r', '/mnt/tank/t', join(local, 'b')]);
    expect(piped.stdout.split('\n')).toContain(`/mnt/tank/t/f.txt\t${join(local, 'b', 'f.txt')}\tdone\t2048\t`);
  });
});

describe('stor upload: two sources for one target', () => {
  it('same basename from two directories is a usage error naming both, before any request', async () => {
    const { pool, local, stor } = setup();
    for (const d of ['a', 'b']) {
      mkdirSync(join(local, d));
      writeFileSync(join(local, d, 'x.txt'), d);
    }
    const a = join(local, 'a/x.txt');
    const b = join(local, 'b/x.txt');
    for (const r of [[], ['-r']]) {
      const res = await stor(['upload', ...r, a, b, '/mnt/tank/d/', '--json']);
      expect(errorOf(res.stderr)).toMatchObject({
        code: 'DUPLICATE_TARGET',
        message: `${a} and ${b} would both go to /mnt/tank/d/x.txt`,
      });
      expect(res.code).toBe(2);
      expect(readdirSync(pool)).toEqual(['t']);
    }
  });

  it('with -r, a file given beside a directory may not take the place of a directory of the tree', async () => {
    const { pool, local, stor } = setup();
    mkdirSync(join(local, 'tree/x'), { recursive: true });
    writeFileSync(join(local, 'tree/x/in.txt'), 'in');
    mkdirSync(join(local, 'other'));
    writeFileSync(join(local, 'other/tree'), 'a file named tree');
    const res = await stor(['upload', '-r', join(local, 'tree'), join(local, 'other/tree'), '/mnt/tank/d/', '--json']);
    expect(errorOf(res.stderr)).toMatchObject({
      code: 'DUPLICATE_TARGET',
      message: `a directory of the tree and ${join(local, 'other/tree')} would both go to /mnt/tank/d/tree`,
    });
    expect(res.code).toBe(2);
    expect(readdirSync(pool)).toEqual(['t']);
  });
});
