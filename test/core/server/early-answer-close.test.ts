import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/server.js';

const BOUNDARY = 'stor-early-answer-boundary-7a2f';

/** Writes `chunk` and resolves once the kernel has taken it, or with the write's error. */
const write = (socket: Socket, chunk: string) =>
  new Promise<Error | null>((resolve) => socket.write(chunk, (err) => resolve(err ?? null)));

/** Resolves with everything the server sent once it has sent the end of `marker`. */
function answerOf(socket: Socket, marker: string): Promise<string> {
  let text = '';
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes(marker)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
  });
}

/**
 * A client that sends its request body while the server has already answered: the answer comes
 * after the upload's `data` part (the credential check), before the file part. nginx, the
 * appliance's front, then closes "lingering" (reads what the client still sends); a server that
 * resets the connection makes the client's next write fail with EPIPE (or ECONNRESET) before it
 * has read the answer, which is what fetch on Node 24 reports as `fetch failed`.
 */
describe('a request answered before its body was read (a refused upload)', () => {
  it('the client can still send the rest of its body, then the server closes cleanly: no reset', async () => {
    const server = await startTestServer();
    const { port } = new URL(server.url);
    const head =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n` +
      JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/early.txt', {}] }) +
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="early.txt"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const fileChunk = 'x'.repeat(16 * 1024);
    const chunks = 8;
    const tail = `\r\n--${BOUNDARY}--\r\n`;
    const length = Buffer.byteLength(head) + chunks * fileChunk.length + Buffer.byteLength(tail);
    const socket = connect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true });
    const errors: Error[] = [];
    socket.on('error', (err) => errors.push(err));
    const closed = new Promise<boolean>((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    const answered = answerOf(socket, 'Invalid token');
    await write(
      socket,
      `POST /_upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token not-a-token\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n${head}`,
    );
    const answer = await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    // The rest of the body, one chunk after another, each after the previous one was taken.
    const failed: (Error | null)[] = [];
    for (let i = 0; i < chunks; i++) failed.push(await write(socket, fileChunk));
    failed.push(await write(socket, tail));
    socket.end();
    await closed;
    expect({ failed: failed.filter(Boolean).map(String), errors: errors.map(String) }).toEqual({
      failed: [],
      errors: [],
    });
  });
});
