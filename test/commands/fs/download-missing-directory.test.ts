import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Where the local directory is missing, the one-file download makes it, as `download -r` and
 * `upload` make theirs: the three agree. Made with the process's umask, as mkdir(1) would.
 */
describe('download of one file into a local directory that is not there', () => {
  it('makes the missing directories and writes the file; a missing remote file makes none', async () => {
    const home = tempDir();
    const run = (args: string[]) => runStor(args, { env: { STOR_HOME: home } });
    const local = tempDir();
    writeFileSync(join(local, 'src.txt'), 'hello\n');
    expect((await run(['upload', join(local, 'src.txt'), '/mnt/tank/a.txt'])).code).toBe(0);

    const named = await run(['download', '/mnt/tank/a.txt', join(local, 'x/y/a.txt'), '--json']);
    expect(named.code, named.stderr).toBe(0);
    expect(readFileSync(join(local, 'x/y/a.txt'), 'utf8')).toBe('hello\n');
    expect(statSync(join(local, 'x/y')).mode & 0o777).toBe(0o777 & ~process.umask());

    const into = await run(['download', '/mnt/tank/a.txt', `${join(local, 'new/dir')}/`]);
    expect(into.code, into.stderr).toBe(0);
    expect(readFileSync(join(local, 'new/dir/a.txt'), 'utf8')).toBe('hello\n');

    const missing = await run(['download', '/mnt/tank/zz', join(local, 'none/zz')]);
    expect(missing.code).toBe(1);
    expect(statSync(join(local, 'none'), { throwIfNoEntry: false })).toBeUndefined();
  });
});
