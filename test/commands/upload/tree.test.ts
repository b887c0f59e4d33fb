import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A fresh embedded appliance and a local tree: `tree/a.txt`, `tree/sub/b.txt`, `tree/sub/empty/`. */
function setup() {
  const home = tempDir('stor-home-');
  Appliance.open({ stateDir: home }).close();
  const local = tempDir('stor-local-');
  const tree = join(local, 'tree');
  mkdirSync(join(tree, 'sub/empty'), { recursive: true });
  writeFileSync(join(tree, 'a.txt'), 'alpha\n');
  writeFileSync(join(tree, 'sub/b.txt'), 'beta beta\n');
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-') };
  const pool = join(home, 'mnt/tank');
  return {
    local,
    tree,
    pool,
    stor: (argv: string[], o: { tty?: boolean; stdin?: string } = {}) =>
      runStor(argv, { env: o.tty ? { ...env, NO_COLOR: '1' } : env, ...o }),
  };
}

describe('stor upload -r / - and download -r on the embedded appliance', () => {
  it('-r mirrors the tree below the target (cp -r), empty directories included; a symbolic link is skipped and said so', async () => {
    const { tree, pool, stor } = setup();
    symlinkSync(join(tree, 'a.txt'), join(tree, 'link.txt'));
    const r = await stor(['upload', '-r', tree, '/mnt/tank/up/', '--json']);
    expect(r.code).toBe(0);
    // A warning, so on stderr under --json too.
    expect(r.stderr).toBe(
      `stor: skipped the symbolic link ${join(tree, 'link.txt')} (--follow uploads what it points to)\n`,
    );
    const report = JSON.parse(r.stdout);
    expect(report.files.map((f: { target: string; outcome: string }) => [f.target, f.outcome])).toEqual([
      ['/mnt/tank/up/tree/a.txt', 'done'],
      ['/mnt/tank/up/tree/sub/b.txt', 'done'],
    ]);
    expect(readFileSync(join(pool, 'up/tree/sub/b.txt'), 'utf8')).toBe('beta beta\n');
    expect(statSync(join(pool, 'up/tree/sub/empty')).isDirectory()).toBe(true);
    expect(readdirSync(join(pool, 'up/tree')).sort()).toEqual(['a.txt', 'sub']);
  });

  it('--follow uploads what a link points to, and does not loop on a link to a directory above it', async () => {
    const { tree, pool, stor } = setup();
    symlinkSync(join(tree, 'a.txt'), join(tree, 'link.txt'));
    symlinkSync(tree, join(tree, 'sub/loop'));
    const r = await stor(['upload', '-r', '--follow', tree, '/mnt/tank/up/']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('loop: a link back to a directory above it');
    expect(readFileSync(join(pool, 'up/tree/link.txt'), 'utf8')).toBe('alpha\n');
    expect(statSync(join(pool, 'up/tree/link.txt')).isFile()).toBe(true);
  });

  it('--skip-existing skips files whose listed size matches and sends the others', async () => {
    const { tree, stor } = setup();
    expect((await stor(['upload', '-r', tree, '/mnt/tank/up/'])).code).toBe(0);
    writeFileSync(join(tree, 'sub/b.txt'), 'beta changed and longer\n');
    writeFileSync(join(tree, 'c.txt'), 'new\n');
    const r = await stor(['upload', '-r', tree, '/mnt/tank/up/', '--skip-existing', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.files.map((f: { target: string; outcome: string }) => [f.target, f.outcome])).toEqual([
      ['/mnt/tank/up/tree/a.txt', 'skipped'],
      ['/mnt/tank/up/tree/c.txt', 'done'],
      ['/mnt/tank/up/tree/sub/b.txt', 'done'],
    ]);
    expect(report.files[0]).toMatchObject({ size: 6, mode: '0644', job_id: null, error: null });
    expect(report.summary).toEqual({ files: 3, done: 2, skipped: 1, failed: 0, not_attempted: 0, bytes_sent: 4 + 24 });
  });

  it('a directory without -r is refused before any request, with the way to do it', async () => {
    const { tree, stor } = setup();
    const r = await stor(['upload', tree, '/mnt/tank/up/', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'LOCAL_NOT_A_FILE',
      hint: 'upload it and everything under it with -r',
    });
  });

  it('-r into a path that is a file on the appliance fails with TARGET_NOT_A_DIRECTORY and uploads nothing', async () => {
    const { tree, local, pool, stor } = setup();
    writeFileSync(join(local, 'plain'), 'x');
    expect((await stor(['upload', join(local, 'plain'), '/mnt/tank/plain'])).code).toBe(0);
    const r = await stor(['upload', '-r', tree, '/mnt/tank/plain/']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/mnt/tank/plain is on the appliance and is not a directory');
    expect(readFileSync(join(pool, 'plain'), 'utf8')).toBe('x');
  });

  it('reads standard input with --name, counting the bytes and checking them against the stat', async () => {
    const { pool, stor } = setup();
    const text = 'from a pipe\n'.repeat(1000);
    const r = await stor(['upload', '-', '/mnt/tank/in/', '--name', 'piped.txt', '--json'], { stdin: text });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files).toEqual([
      {
        source: '-',
        target: '/mnt/tank/in/piped.txt',
        outcome: 'done',
        bytes: text.length,
        size: text.length,
        mode: '0644',
        owner: 'truenas_admin',
        job_id: expect.any(Number),
        error: null,
      },
    ]);
    expect(readFileSync(join(pool, 'in/piped.txt'), 'utf8')).toBe(text);

    const toFile = await stor(['upload', '-', '/mnt/tank/in/direct.txt'], { stdin: 'direct' });
    expect(toFile.code).toBe(0);
    expect(readFileSync(join(pool, 'in/direct.txt'), 'utf8')).toBe('direct');
  });

  it('standard input without a name for a directory target, or mixed with files, is a usage error', async () => {
    const { tree, stor } = setup();
    const noName = await stor(['upload', '-', '/mnt/tank/in/'], { stdin: 'x' });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('stor upload - /mnt/tank/in/ --name FILE');
    const mixed = await stor(['upload', '-', join(tree, 'a.txt'), '/mnt/tank/in/'], { stdin: 'x' });
    expect(mixed.code).toBe(2);
    const badName = await stor(['upload', '-', '/mnt/tank/in/', '--name', '../x'], { stdin: 'x' });
    expect(badName.code).toBe(2);
    const parallel = await stor(['upload', '-r', tree, '/mnt/tank/in/', '--parallel', '0']);
    expect(parallel.code).toBe(2);
  });

  it('on a terminal, several files show one total progress line (files, bytes, rate, ETA)', async () => {
    const { tree, stor } = setup();
    const r = await stor(['upload', '-r', tree, '/mnt/tank/up/'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/uploaded 2\/2 files {2}16 B\/16 B {2}.*\/s {2}ETA 00:00\n$/);
  });

  it('download -r makes the local directory a copy of the remote one; a directory without -r is refused, a file without it downloads', async () => {
    const { tree, local, stor } = setup();
    expect((await stor(['upload', '-r', tree, '/mnt/tank/up/'])).code).toBe(0);
    const copy = join(local, 'copy');
    const r = await stor(['download', '-r', '/mnt/tank/up/tree', copy, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toEqual({ files: 2, done: 2, failed: 0, not_attempted: 0, bytes_received: 16 });
    expect(report.directories).toBe(3);
    expect(readFileSync(join(copy, 'sub/b.txt'), 'utf8')).toBe('beta beta\n');
    expect(statSync(join(copy, 'sub/empty')).isDirectory()).toBe(true);
    expect(readdirSync(join(copy, 'sub')).sort()).toEqual(['b.txt', 'empty']);

    const intoFile = await stor(['download', '-r', '/mnt/tank/up/tree', join(tree, 'a.txt')]);
    expect(intoFile.code).toBe(2);
    const dir = await stor(['download', '/mnt/tank/up/tree', join(local, 'd')]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain('is a directory');
    const single = await stor(['download', '/mnt/tank/up/tree/a.txt', join(local, 'a')]);
    expect(single.code, single.stderr).toBe(0);
    expect(readFileSync(join(local, 'a'), 'utf8')).toBe(readFileSync(join(tree, 'a.txt'), 'utf8'));
  });
});
