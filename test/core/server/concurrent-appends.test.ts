import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/server.js';
import { startSplitUpload, until } from '../../helpers/split-upload.js';

const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.part'));

describe('two appends to one file at once', () => {
  it('both acknowledged appends are in the file, whole, in some order', async () => {
    const server = await startTestServer();
    const pool = join(server.stateDir, 'mnt/tank');
    writeFileSync(join(pool, 'log.txt'), 'start\n');
    const a = startSplitUpload(server, '/mnt/tank/log.txt', { append: true }, 'AAAA-first-');
    await until(() => temps(pool).length === 1, "the first append's temporary file");
    const b = startSplitUpload(server, '/mnt/tank/log.txt', { append: true }, 'BBBB-first-');
    await until(() => temps(pool).length === 2, "the second append's temporary file");

    const [ja, jb] = await Promise.all([a.finish('AAAA-last\n'), b.finish('BBBB-last\n')]);
    expect([ja.state, jb.state]).toEqual(['SUCCESS', 'SUCCESS']);
    expect([
      'start\nAAAA-first-AAAA-last\nBBBB-first-BBBB-last\n',
      'start\nBBBB-first-BBBB-last\nAAAA-first-AAAA-last\n',
    ]).toContain(readFileSync(join(pool, 'log.txt'), 'utf8'));
    expect(temps(pool)).toEqual([]);
  });
});
