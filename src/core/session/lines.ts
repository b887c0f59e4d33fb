import type { Socket } from 'node:net';
import { MAX_LINE_BYTES } from './protocol.js';

/**
 * Reads newline-delimited lines from `socket` until `onLine` returns false. A line longer than
 * MAX_LINE_BYTES (protocol.ts) ends the connection: neither side buffers without bound. When the
 * reader stops, bytes already read past the last line are put back (unshift) for whoever reads next.
 */
export function readLines(socket: Socket, onLine: (line: string) => boolean): void {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const onData = (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...held, chunk.subarray(start, nl)]).toString('utf8');
      held = [];
      heldBytes = 0;
      start = nl + 1;
      if (line.length > MAX_LINE_BYTES) {
        socket.destroy();
        return;
      }
      if (!onLine(line)) {
        socket.off('data', onData);
        socket.pause();
        if (start < chunk.length) socket.unshift(chunk.subarray(start));
        return;
      }
    }
    const rest = chunk.subarray(start);
    heldBytes += rest.length;
    if (heldBytes > MAX_LINE_BYTES) {
      socket.destroy();
      return;
    }
    if (rest.length > 0) held.push(rest);
  };
  socket.on('data', onData);
}
