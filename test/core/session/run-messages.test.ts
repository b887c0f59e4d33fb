import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RunWire } from '../../../src/agent/handed-over-io.js';
import { runMessageReader } from '../../../src/core/session/protocol.js';

/** Feeds `chunks` to a runMessageReader: what it reads, in order, and why it gave up if it did. */
function read(chunks: Buffer[]) {
  const got: unknown[] = [];
  let bad: string | undefined;
  const feed = runMessageReader(
    (m) => got.push(m),
    (bytes) => got.push(bytes.toString('latin1')),
    (why) => (bad = why),
  );
  for (const c of chunks) feed(c);
  // Adjacent pieces of bytes joined: how they were cut is the socket's business.
  const joined: unknown[] = [];
  for (const g of got) {
    const last = joined.at(-1);
    if (typeof g === 'string' && typeof last === 'string') joined[joined.length - 1] = last + g;
    else joined.push(g);
  }
  return { got: joined, bad };
}

describe('runMessageReader', () => {
  const wire = Buffer.from(
    '{"t":"accepted","changes":false}\n' +
      '{"t":"out","n":12}\n{"x":1}\n[\n]\n' +
      '{"t":"err","n":0}\n' +
      '{"t":"err","n":3}\n\n{\n' +
      '{"t":"exit","code":0}\n',
  );
  const want = [
    { t: 'accepted', changes: false },
    { t: 'out', n: 12 },
    '{"x":1}\n[\n]\n',
    { t: 'err', n: 0 },
    { t: 'err', n: 3 },
    '\n{\n',
    { t: 'exit', code: 0 },
  ];

  it('hands over the bytes an `out`/`err` announces as they are, newlines and braces in them not read as lines', () => {
    expect(read([wire])).toEqual({ got: want, bad: undefined });
  });

  it('reads the same however the socket cuts the bytes', () => {
    for (let cut = 1; cut < wire.length; cut++)
      expect(read([wire.subarray(0, cut), wire.subarray(cut)])).toEqual({ got: want, bad: undefined });
    expect(read([...wire].map((b) => Buffer.from([b])))).toEqual({ got: want, bad: undefined });
  });

  it('gives up on an `out` without its byte count, and reads nothing after it', () => {
    for (const line of ['{"t":"out","d":"hi"}', '{"t":"out","n":-1}', '{"t":"err","n":1.5}', '{"t":"out","n":"2"}']) {
      const r = read([Buffer.from(`${line}\n{"t":"exit","code":0}\n`)]);
      expect(r.bad).toBe('an output line without its byte count');
      expect(r.got).toEqual([]);
    }
  });
});

describe('RunWire', () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
  });

  /** A RunWire on one end of a loopback connection, and what the other end reads. */
  async function wired() {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const client = connect(port, '127.0.0.1');
    const [agentEnd] = (await once(server, 'connection')) as [Socket];
    server.close();
    sockets.push(client, agentEnd);
    const got: unknown[] = [];
    let to = '';
    client.on(
      'data',
      runMessageReader(
        (m) => {
          got.push(m);
          to = String(m.t);
        },
        (bytes) => got.push(`${to}:${bytes.toString('utf8')}`),
        (why) => got.push({ bad: why }),
      ),
    );
    return { wire: new RunWire(agentEnd), got, ended: once(client, 'end') };
  }

  it('sends the text of one turn to one stream as one `out`, keeping the order between stdout and stderr', async () => {
    const { wire, got, ended } = await wired();
    wire.output('out', '[\n  1');
    wire.output('out', ',\n  2');
    wire.output('err', 'nas2: note\n');
    wire.output('out', '\n]\n');
    wire.output('out', Buffer.from([0xff, 0x00]));
    wire.send({ t: 'exit', code: 0 });
    wire.conn.end();
    await ended;
    expect(got).toEqual([
      { t: 'out', n: 10 },
      'out:[\n  1,\n  2',
      { t: 'err', n: 11 },
      'err:nas2: note\n',
      { t: 'out', n: 3 },
      'out:\n]\n',
      { t: 'out', n: 2 },
      `out:${Buffer.from([0xff, 0x00]).toString('utf8')}`,
      { t: 'exit', code: 0 },
    ]);
  });

  it('never joins the halves of a surrogate pair written apart: each stays a replacement character, as in a process', async () => {
    const { wire, got, ended } = await wired();
    const pair = '😀';
    wire.output('out', `a${pair[0]}`);
    wire.output('out', `${pair[1]}b`);
    wire.send({ t: 'exit', code: 0 });
    wire.conn.end();
    await ended;
    const bytes = got.filter((g) => typeof g === 'string').join('');
    // What `process.stdout.write` makes of each half on its own (U+FFFD, three bytes each).
    expect(bytes).toBe(`out:a${Buffer.from(pair[0]!).toString('utf8')}out:${Buffer.from(pair[1]!).toString('utf8')}b`);
    expect(bytes).not.toContain(pair);
  });
});
