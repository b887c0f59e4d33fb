import { createSocket } from 'node:dgram';
import { onTestFinished } from 'vitest';

/** A name server of a test: what it was asked, and where it listens. */
export interface TestNameServer {
  /** `127.0.0.1:port`, as a resolver's servers list takes it. */
  address: string;
  /** The questions received, as `name A` or `name AAAA`, in arrival order. */
  asked: string[];
}

const TYPES: Record<number, string> = { 1: 'A', 28: 'AAAA' };

/** The question's name and the offset just past its type and class. */
function question(msg: Buffer): { name: string; type: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (msg[at]! > 0) {
    labels.push(msg.toString('latin1', at + 1, at + 1 + msg[at]!));
    at += msg[at]! + 1;
  }
  return { name: labels.join('.'), type: TYPES[msg.readUInt16BE(at + 1)] ?? 'other', end: at + 5 };
}

/**
 * A real DNS server on 127.0.0.1, port 0, closed when the test ends. It answers the A records of
 * `records` (name → IPv4 addresses) and no other record; a name it does not know is NXDOMAIN; and
 * with `silent` it answers nothing at all, as a name server that hangs.
 */
export async function startNameServer(
  options: { records?: Record<string, string[]>; silent?: boolean } = {},
): Promise<TestNameServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (msg, from) => {
    const q = question(msg);
    asked.push(`${q.name} ${q.type}`);
    if (options.silent) return;
    const known = options.records?.[q.name.toLowerCase()];
    const answers = known && q.type === 'A' ? known : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((a) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(1, 2); // A
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(4, 10);
      a.split('.').forEach((octet, i) => rr.writeUInt8(Number(octet), 12 + i));
      return rr;
    });
    socket.send(Buffer.concat([header, msg.subarray(12, q.end), ...records]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return { address: `127.0.0.1:${socket.address().port}`, asked };
}
