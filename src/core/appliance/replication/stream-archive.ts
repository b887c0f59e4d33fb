import { createReadStream } from 'node:fs';
import { chmod, lstat, lutimes, mkdir, open, readdir, readlink, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

// A snapshot's copy of its files as one stream, what `zfs send` is to the emulator's replication to
// another appliance (docs/REPLICATION.md): each entry a 4-byte big-endian length, a JSON header,
// then a file's bytes; a zero length ends it. Written and read a chunk at a time: no file is ever
// held whole in memory on either side.

interface Header {
  /** Path inside the snapshot, `/`-separated; '' is the snapshot's root (its attributes, sent last). */
  readonly p: string;
  readonly t: 'd' | 'f' | 'l';
  readonly m: number;
  readonly at: number;
  readonly mt: number;
  /** A file's size. */
  readonly s?: number;
  /** A symlink's target. */
  readonly l?: string;
}

const MAX_HEADER = 16 * 1024;

function frame(h: Header): Buffer {
  const json = Buffer.from(JSON.stringify(h));
  const n = Buffer.alloc(4);
  n.writeUInt32BE(json.length);
  return Buffer.concat([n, json]);
}

/** The stream of the tree `dir` (a snapshot's private copy, which nothing else writes). */
export async function* archiveOf(dir: string): AsyncGenerator<Buffer> {
  async function* walk(rel: string): AsyncGenerator<Buffer> {
    const names = (await readdir(join(dir, rel))).sort();
    for (const name of names) {
      const p = rel === '' ? name : `${rel}/${name}`;
      const host = join(dir, p);
      const st = await lstat(host);
      const base = { p, m: st.mode & 0o7777, at: st.atimeMs, mt: st.mtimeMs };
      if (st.isDirectory()) {
        yield frame({ ...base, t: 'd' });
        yield* walk(p);
      } else if (st.isSymbolicLink()) {
        yield frame({ ...base, t: 'l', l: await readlink(host) });
      } else if (st.isFile()) {
        yield frame({ ...base, t: 'f', s: st.size });
        let sent = 0;
        for await (const chunk of createReadStream(host, { highWaterMark: 64 * 1024, end: Math.max(0, st.size - 1) })) {
          const b = (chunk as Buffer).subarray(0, st.size - sent);
          sent += b.length;
          if (b.length > 0) yield b;
          if (sent >= st.size) break;
        }
        // A file that shrank under us would break the framing: the rest is zeros, as a fixed size says.
        if (sent < st.size) yield Buffer.alloc(st.size - sent);
      }
    }
  }
  yield* walk('');
  const root = await lstat(dir);
  yield frame({ p: '', t: 'd', m: root.mode & 0o7777, at: root.atimeMs, mt: root.mtimeMs });
  yield Buffer.alloc(4);
}

export class ArchiveError extends Error {}

/** Pulls exact byte counts from a chunked source, holding at most one chunk beyond what is asked. */
class Pull {
  private buf: Buffer = Buffer.alloc(0);
  total = 0;
  constructor(
    private readonly it: AsyncIterator<Buffer>,
    private readonly maxBytes: number,
  ) {}
  private async more(): Promise<boolean> {
    const r = await this.it.next();
    if (r.done) return false;
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
    this.total += chunk.length;
    if (this.total > this.maxBytes) throw new ArchiveError(`the stream is larger than ${this.maxBytes} bytes`);
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return true;
  }
  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n) if (!(await this.more())) throw new ArchiveError('the stream ended early');
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  /** `n` bytes, a chunk at a time. */
  async *chunks(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.more())) throw new ArchiveError('the stream ended early');
      const out = this.buf.subarray(0, left);
      this.buf = this.buf.subarray(out.length);
      left -= out.length;
      yield out;
    }
  }
  async atEnd(): Promise<boolean> {
    return this.buf.length === 0 && !(await this.more());
  }
}

const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function checkHeader(h: unknown): Header {
  const x = h as Partial<Header>;
  const ok =
    typeof x === 'object' &&
    x !== null &&
    typeof x.p === 'string' &&
    (x.t === 'd' || x.t === 'f' || x.t === 'l') &&
    num(x.m) &&
    num(x.at) &&
    num(x.mt) &&
    (x.t !== 'f' || (num(x.s) && Number.isInteger(x.s))) &&
    (x.t !== 'l' || typeof x.l === 'string');
  if (!ok) throw new ArchiveError('a malformed entry header');
  return x as Header;
}

/**
 * Writes the stream into the new, empty directory `into`. An entry goes only into a directory the
 * stream made itself: a path through a symlink, `..`, or anything twice is refused, so nothing it
 * holds can reach outside `into`. Bounded: `maxBytes` in all, `maxEntries` entries.
 */
export async function readArchive(
  source: AsyncIterable<Buffer>,
  into: string,
  limits: { maxBytes: number; maxEntries: number },
): Promise<void> {
  await mkdir(into, { recursive: true, mode: 0o700 });
  const pull = new Pull(source[Symbol.asyncIterator](), limits.maxBytes);
  const dirs = new Set<string>(['']);
  const dirTimes: Header[] = [];
  let rootSeen = false;
  for (let entries = 0; ; entries++) {
    if (entries > limits.maxEntries) throw new ArchiveError(`more than ${limits.maxEntries} entries`);
    const n = (await pull.take(4)).readUInt32BE(0);
    if (n === 0) break;
    if (n > MAX_HEADER || rootSeen) throw new ArchiveError('a malformed entry header');
    let h: Header;
    try {
      h = checkHeader(JSON.parse((await pull.take(n)).toString('utf8')));
    } catch (err) {
      if (err instanceof ArchiveError) throw err;
      throw new ArchiveError('a malformed entry header');
    }
    if (h.p === '') {
      if (h.t !== 'd') throw new ArchiveError('a malformed entry header');
      rootSeen = true;
      dirTimes.push(h);
      continue;
    }
    const parts = h.p.split('/');
    const parent = parts.slice(0, -1).join('/');
    if (parts.some((x) => x === '' || x === '.' || x === '..' || x.includes('\0')) || !dirs.has(parent))
      throw new ArchiveError(`an entry outside the snapshot: ${JSON.stringify(h.p)}`);
    const host = join(into, h.p);
    if (h.t === 'd') {
      await mkdir(host, { mode: 0o700 });
      dirs.add(h.p);
      dirTimes.push(h);
    } else if (h.t === 'l') {
      await symlink(h.l!, host);
      await lutimes(host, h.at / 1000, h.mt / 1000);
    } else {
      const file = await open(host, 'wx', 0o600);
      try {
        for await (const chunk of pull.chunks(h.s!)) await file.write(chunk);
      } finally {
        await file.close();
      }
      await chmod(host, h.m);
      await utimes(host, h.at / 1000, h.mt / 1000);
    }
  }
  if (!(await pull.atEnd())) throw new ArchiveError('data after the end of the stream');
  // Directories last, deepest first: their contents changed their times.
  for (const h of dirTimes.reverse()) {
    const host = h.p === '' ? into : join(into, h.p);
    await chmod(host, h.m);
    await utimes(host, h.at / 1000, h.mt / 1000);
  }
}
