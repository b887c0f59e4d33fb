import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

function embedded() {
  const home = tempDir();
  return (args: string[]) => runStor([...args], { env: { STOR_HOME: home } });
}

const errorOf = (r: { stderr: string }) =>
  JSON.parse(r.stderr).error as { code: string; message: string; hint?: string };

/** A hint is a command that works, or a step that helps: never the command that just failed, nor one that fails next. */
describe('hints that work', () => {
  it('dataset list of a missing pool hints the list of every dataset, not itself; below a pool, that pool', async () => {
    const run = embedded();
    const top = errorOf(await run(['dataset', 'list', 'nosuch', '--json']));
    expect(top).toMatchObject({ code: 'NOT_FOUND', hint: '`stor dataset list` shows them' });
    expect(errorOf(await run(['dataset', 'list', 'nosuch/x', '--json'])).hint).toBe('`stor dataset list` shows them');
    expect(errorOf(await run(['dataset', 'list', 'tank/nosuch', '--json'])).hint).toBe(
      '`stor dataset list tank` shows them',
    );
    expect((await run(['dataset', 'list'])).code).toBe(0);
  });

  it('dataset delete of a dataset with children hints --recursive (previewed), which then works', async () => {
    const run = embedded();
    expect((await run(['dataset', 'create', 'tank/p/c', '--parents'])).code).toBe(0);
    const refused = await run(['dataset', 'delete', 'tank/p', '--yes', '--json']);
    expect(refused.code).toBe(1);
    expect(errorOf(refused).hint).toBe(
      '`stor dataset delete tank/p --recursive --dry-run` shows what --recursive deletes with it',
    );
    const preview = await run(['dataset', 'delete', 'tank/p', '--recursive', '--dry-run', '--json']);
    expect(JSON.parse(preview.stdout)).toMatchObject({ deleted: ['tank/p/c', 'tank/p'] });
  });

  it('mkdir hints -p only where -p would make it: below a pool, not beside the pools', async () => {
    const run = embedded();
    const inPool = errorOf(await run(['mkdir', '/mnt/tank/a/b', '--json']));
    expect(inPool.hint).toBe('`stor mkdir -p /mnt/tank/a/b` makes the missing parents too');
    expect((await run(['mkdir', '-p', '/mnt/tank/a/b'])).code).toBe(0);
    const outside = errorOf(await run(['mkdir', '/mnt/other/x', '--json']));
    expect(outside.message).toContain('/mnt/other');
    expect(outside.hint).not.toContain('-p');
    expect(outside.hint).toContain('stor dataset list');
    expect((await run(['mkdir', '-p', '/mnt/other/x'])).code).not.toBe(0);
  });

  it('several files onto an existing file: the hint names a directory, not the file with a / added', async () => {
    const run = embedded();
    const dir = tempDir();
    for (const name of ['a', 'b', 'README.md']) writeFileSync(join(dir, name), name);
    expect((await run(['upload', join(dir, 'README.md'), '/mnt/tank/README.md'])).code).toBe(0);
    const refused = errorOf(await run(['upload', join(dir, 'a'), join(dir, 'b'), '/mnt/tank/README.md', '--json']));
    expect(refused.code).toBe('TARGET_NOT_A_DIRECTORY');
    expect(refused.hint).not.toContain('README.md/');
    expect(refused.hint).toContain('/mnt/tank/');
    // A missing target may still become the directory.
    expect(errorOf(await run(['upload', join(dir, 'a'), join(dir, 'b'), '/mnt/tank/new', '--json'])).hint).toBe(
      'end the target with / to create it: /mnt/tank/new/',
    );
  });
});
