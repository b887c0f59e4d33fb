import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** as a user meets it: two `stor upload --append` to one file, started at once. */
describe('two `stor upload --append` to one file at once, with the built binary', () => {
  it('both exit 0 and both appends are in the file, whole, in some order', async () => {
    const state = tempDir('stor-serve-state-');
    const server = await spawnServe(state);
    const env = {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    };
    const dir = tempDir('stor-e2e-files-');
    const start = Buffer.from('start\n');
    // Large enough that the two uploads are in flight together.
    const a = Buffer.concat([Buffer.from('A'), randomBytes(4 * 1024 * 1024)]);
    const b = Buffer.concat([Buffer.from('B'), randomBytes(4 * 1024 * 1024)]);
    writeFileSync(join(dir, 'start'), start);
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    expect((await spawnStor(['upload', join(dir, 'start'), '/mnt/tank/log.bin'], { env })).code).toBe(0);

    const [ra, rb] = await Promise.all([
      spawnStor(['upload', join(dir, 'a'), '/mnt/tank/log.bin', '--append'], { env }),
      spawnStor(['upload', join(dir, 'b'), '/mnt/tank/log.bin', '--append'], { env }),
    ]);
    expect([ra.code, ra.stderr, rb.code, rb.stderr]).toEqual([0, '', 0, '']);
    const got = readFileSync(join(state, 'mnt/tank/log.bin'));
    expect(got.length).toBe(start.length + a.length + b.length);
    const whole = [Buffer.concat([start, a, b]), Buffer.concat([start, b, a])].some((w) => w.equals(got));
    expect(whole).toBe(true);
  });
});

/**
 * Attack on point 5's fix: appends took turns within one process, but every embedded `stor` is a
 * process of its own on the one state directory (as test/core/store/concurrent-writers.e2e.test.ts has them),
 * and there the later rename still dropped the other append, both exiting 0.
 */
describe('two embedded `stor upload --append` processes on one state directory', () => {
  it('every acknowledged append is in the file, whole, round after round', async () => {
    const env = { ...clientEnv(), STOR_HOME: tempDir('stor-embedded-state-') };
    const dir = tempDir('stor-e2e-files-');
    const a = Buffer.concat([Buffer.from('A'), randomBytes(256 * 1024)]);
    const b = Buffer.concat([Buffer.from('B'), randomBytes(256 * 1024)]);
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    writeFileSync(join(dir, 'empty'), '');
    expect((await spawnStor(['upload', join(dir, 'empty'), '/mnt/tank/log.bin'], { env })).code).toBe(0);
    // Bounded by count: each round starts both processes at once; most rounds overlap.
    const ROUNDS = 8;
    for (let i = 0; i < ROUNDS; i++) {
      const [ra, rb] = await Promise.all([
        spawnStor(['upload', join(dir, 'a'), '/mnt/tank/log.bin', '--append'], { env }),
        spawnStor(['upload', join(dir, 'b'), '/mnt/tank/log.bin', '--append'], { env }),
      ]);
      expect([ra.code, ra.stderr, rb.code, rb.stderr]).toEqual([0, '', 0, '']);
    }
    const got = readFileSync(join(env.STOR_HOME, 'mnt/tank/log.bin'));
    expect(got.length).toBe(ROUNDS * (a.length + b.length));
    // Whole: each round's two appends, in one order or the other.
    let at = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const pair = got.subarray(at, at + a.length + b.length);
      expect([Buffer.concat([a, b]), Buffer.concat([b, a])].some((w) => w.equals(pair))).toBe(true);
      at += a.length + b.length;
    }
  });
});
