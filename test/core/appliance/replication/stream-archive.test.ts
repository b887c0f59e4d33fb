/**
 * The stream a snapshot's files travel in to another appliance (replication/stream-archive.ts): a
 * tree goes through whole, and a stream that tries to write outside the directory it fills, or
 * goes past its bounds, is refused with nothing written outside.
 */
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError, archiveOf, readArchive } from '../../../../src/core/appliance/replication/stream-archive.js';
import { failureOf } from '../../../helpers/replication-spec.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const LIMITS = { maxBytes: 1024 * 1024, maxEntries: 100 };

function frame(header: object): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const n = Buffer.alloc(4);
  n.writeUInt32BE(json.length);
  return Buffer.concat([n, json]);
}
const END = Buffer.alloc(4);
const entry = (p: string, t: 'd' | 'f' | 'l', extra: object = {}) => frame({ p, t, m: 0o644, at: 0, mt: 0, ...extra });

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield p;
}

const refusal = (p: Promise<unknown>) => failureOf(p, ArchiveError);

describe("a snapshot's stream", () => {
  it('carries files, directories, symlinks, modes and times through', async () => {
    const from = tempDir();
    mkdirSync(join(from, 'sub'));
    writeFileSync(join(from, 'sub', 'f.txt'), 'hello');
    symlinkSync('sub/f.txt', join(from, 'link'));
    const into = join(tempDir(), 'copy');
    await readArchive(archiveOf(from), into, LIMITS);
    expect(readFileSync(join(into, 'sub', 'f.txt'), 'utf8')).toBe('hello');
    expect(readlinkSync(join(into, 'link'))).toBe('sub/f.txt');
    // To the millisecond, as a local replication's copy keeps them (files/tree-copy.ts).
    const mtime = (dir: string) => Math.trunc(statSync(join(dir, 'sub', 'f.txt')).mtimeMs);
    expect(mtime(into)).toBe(mtime(from));
  });

  it('refuses an entry through a symlink it made, or with .., writing nothing outside', async () => {
    const outside = tempDir();
    const into = join(tempDir(), 'copy');
    const viaLink = chunks(entry('l', 'l', { l: outside }), entry('l/x', 'f', { s: 1 }), Buffer.from('x'), END);
    expect((await refusal(readArchive(viaLink, into, LIMITS))).message).toMatch(/outside the snapshot/);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    const into2 = join(tempDir(), 'copy');
    const dotdot = chunks(entry('../x', 'f', { s: 1 }), Buffer.from('x'), END);
    expect((await refusal(readArchive(dotdot, into2, LIMITS))).message).toMatch(/outside the snapshot/);
  });

  it('refuses a stream larger than its bound, and one that ends early', async () => {
    const big = chunks(entry('f', 'f', { s: 2 * 1024 * 1024 }), Buffer.alloc(2 * 1024 * 1024), END);
    expect((await refusal(readArchive(big, join(tempDir(), 'c'), LIMITS))).message).toMatch(/larger than/);
    const short = chunks(entry('f', 'f', { s: 10 }), Buffer.from('abc'));
    expect((await refusal(readArchive(short, join(tempDir(), 'c'), LIMITS))).message).toMatch(/ended early/);
  });
});
