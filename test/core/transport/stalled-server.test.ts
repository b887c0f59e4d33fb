import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectWs, loggedInWs, startTestServer } from '../../helpers/server.js';

/*
 * On a loaded host the server's own process stalls. An idle timer and a peer's bytes that
 * arrived during the stall then become due in the same event-loop turn, and timers run before I/O:
 * the server must look at its sockets once more before it calls the peer idle. The stall is made
 * here, deterministically, by blocking this (the server's) process for longer than the idle timeout
 * right after the client's bytes went out; no duration is asserted.
 */
/** Every timeout here: the client's own next step comes a loop turn after the server's, well within this. */
const LIMIT_MS = 1000;
/**
 * Each stall: past the limit. The server armed its timer before the stall began (timers count from
 * the loop's cached time, never later than the arming), so when the stall ends the timer is due,
 * however loaded the machine; a margin over the limit is enough, twice the limit only burned CPU.
 */
const STALL_MS = LIMIT_MS + 250;
const BOUNDARY = 'stor-stall-boundary';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** This process does nothing else for `ms`: the server is stalled, the kernel still takes the peer's bytes. */
function stallServer(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* the stall */
  }
}

/**
 * A raw TCP client; `response` resolves with the HTTP status once the final answer's head is in,
 * `received(text)` once the server has sent `text`.
 */
async function rawClient(
  port: number,
): Promise<{ socket: Socket; response: Promise<number>; received: (text: string) => Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  onTestFinished(() => void socket.destroy());
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let head = '';
  const response = new Promise<number>((resolve, reject) => {
    socket.on('data', (c: Buffer) => {
      head += c.toString('latin1');
      // The final answer, past any `100 Continue`.
      const m = /^HTTP\/1\.1 ([2-9]\d\d)[^]*?\r\n\r\n/m.exec(head);
      if (m) resolve(Number(m[1]));
    });
    socket.once('close', () => reject(new Error(`closed before an answer: ${JSON.stringify(head)}`)));
  });
  response.catch(() => undefined);
  const received = (text: string) =>
    new Promise<void>((resolve) => {
      const look = () => {
        if (!head.includes(text)) return;
        socket.off('data', look);
        resolve();
      };
      socket.on('data', look);
      look();
    });
  return { socket, response, received };
}

describe('a server stalled by its own load does not blame the peer', () => {
  it('an upload whose bytes arrived while the server was stalled past the idle timeout is not cut off, and lands whole', async () => {
    const server = await startTestServer({}, { limits: { uploadIdleMs: LIMIT_MS } });
    const pieces = Array.from({ length: 3 }, () => randomBytes(1024));
    const data = JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/stalled-server.bin', {}] });
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${data}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const length = head.length + pieces.length * 1024 + tail.length;
    const { socket, response } = await rawClient(server.port);
    socket.write(
      `POST /_upload/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`,
    );
    socket.write(head);
    // Each piece reaches the kernel at once; the server reads it only after a stall past the
    // timeout (the first stall also covers the credential check, which runs meanwhile).
    for (const piece of pieces) {
      socket.write(piece);
      stallServer(STALL_MS);
      await nextTurn();
    }
    socket.write(tail);
    expect(await response).toBe(200);
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    await client.result('core.job_wait', [1]);
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/stalled-server.bin')))).toBe(
      sha256(Buffer.concat(pieces)),
    );
  });

  it('a login sent before the login timeout but read only after the server stalled past it is heard out, and the session works', async () => {
    const server = await startTestServer({}, { limits: { loginTimeoutMs: LIMIT_MS } });
    const client = await connectWs(server.rpcUrl);
    const login = client.call('auth.login_with_api_key', [server.adminKey]);
    stallServer(STALL_MS);
    expect((await login).result).toBe(true);
    expect(await client.result('core.ping')).toBe('pong');
  });

  it('a call sent before the idle timeout but read only after the server stalled past it keeps the session open', async () => {
    const server = await startTestServer({}, { limits: { idleTimeoutMs: LIMIT_MS } });
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const ping = client.result('core.ping');
    stallServer(STALL_MS);
    expect(await ping).toBe('pong');
  });

  it('with --ws-idle-timeout, a ping sent in time but read only after the server stalled past the timeout is answered, not cut off', async () => {
    const server = await startTestServer({}, { wsIdleTimeoutSeconds: LIMIT_MS / 1000 });
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const pong = new Promise<void>((resolve) => client.ws.once('pong', () => resolve()));
    client.ws.ping();
    stallServer(STALL_MS);
    await Promise.race([
      pong,
      client.closed.then(({ code }) => Promise.reject(new Error(`cut off (${code}) instead of answered`))),
    ]);
    expect(await client.result('core.ping')).toBe('pong');
  });

  it('an anonymous POST /api/current whose body arrived before its deadline, read only after the server stalled past it, is answered, not 408', async () => {
    const server = await startTestServer({}, { limits: { anonymousBodyMs: LIMIT_MS } });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] });
    const { socket, response, received } = await rawClient(server.port);
    socket.write(
      `POST /api/current HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    // Node answers `100 Continue` as it hands the request over, in the same turn the deadline is armed.
    await received('100 Continue');
    socket.write(body);
    stallServer(STALL_MS);
    expect(await response).toBe(200);
  });
});
