import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { SAFETY_MS, connectWs, loggedInWs, postRpc, startTestServer, type TestServer } from '../../helpers/server.js';

/** The server still does its job: a new WebSocket logs in and pings, and an HTTP POST pings. */
async function assertServing(server: TestServer): Promise<void> {
  const client = await loggedInWs(server.rpcUrl, server.adminKey);
  expect(await client.call('core.ping', [], 'alive')).toEqual({ jsonrpc: '2.0', id: 'alive', result: 'pong' });
  expect(((await client.call('auth.me')).result as { pw_name: string }).pw_name).toBe('truenas_admin');
  client.close();
  const res = await postRpc(
    server.url,
    { jsonrpc: '2.0', id: 'http', method: 'core.ping', params: [] },
    { key: server.adminKey },
  );
  expect(res.status).toBe(200);
  expect(res.json()).toEqual({ jsonrpc: '2.0', id: 'http', result: 'pong' });
}

/** A raw TCP connection to the server; destroyed when the test ends. */
function rawSocket(port: number): Promise<{ socket: Socket; received: () => Buffer; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    onTestFinished(() => void socket.destroy());
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve({ socket, received: () => Buffer.concat(chunks), ended });
    });
  });
}

function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve())));
}

/** Resolves when `predicate` holds for the bytes received so far (or rejects after the safety net). */
function receivedUntil(
  socket: Socket,
  received: () => Buffer,
  predicate: (b: Buffer) => boolean,
  what: string,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`safety timeout waiting for ${what}`)), SAFETY_MS);
    const check = () => {
      if (predicate(received())) {
        clearTimeout(timer);
        socket.off('data', check);
        socket.off('close', check);
        resolve(received());
      }
    };
    socket.on('data', check);
    socket.on('close', check);
    check();
  });
}

const UPGRADE = (path: string, key = 'dGhlIHNhbXBsZSBub25jZQ==') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;

describe('the server survives misbehaving clients', () => {
  it('keeps serving after garbage on raw TCP sockets', async () => {
    const server = await startTestServer();

    // Garbage the HTTP parser rejects: the server answers 400 and closes; nothing else happens.
    for (const garbage of [
      randomBytes(4096),
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
      Buffer.from('NOT-HTTP \x00\x01\x02\r\n\r\n'),
    ]) {
      const { socket, received, ended } = await rawSocket(server.port);
      // Random bytes could by chance start with a method name; make sure they never do.
      await write(socket, Buffer.concat([Buffer.from([0x00]), garbage]));
      await ended;
      expect(received().toString('latin1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    }

    // Half requests, left hanging, then dropped.
    for (const half of [
      'GET /api/cur',
      'POST /api/current HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Le',
      'POST /api/current HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{"jsonrpc": "2.0", "id": 1, "meth',
      UPGRADE('/api/current').slice(0, 60),
    ]) {
      const { socket } = await rawSocket(server.port);
      await write(socket, half);
      await write(socket, randomBytes(512));
      socket.destroy();
    }

    // A WebSocket handshake, then frames that break the protocol: the server closes with 1002.
    {
      const { socket, received, ended } = await rawSocket(server.port);
      await write(socket, UPGRADE('/api/current'));
      await receivedUntil(socket, received, (b) => b.includes('\r\n\r\n'), 'the 101 answer');
      expect(received().toString('latin1')).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
      const handshakeLength = received().indexOf('\r\n\r\n') + 4;
      // FIN with RSV2 and RSV3 set: invalid in any frame.
      await write(socket, Buffer.concat([Buffer.from([0xf1, 0x85]), randomBytes(64)]));
      await ended;
      const frame = received().subarray(handshakeLength);
      // A close frame (opcode 8) with status 1002 (0x03ea).
      expect(frame[0]).toBe(0x88);
      expect(frame.readUInt16BE(2)).toBe(1002);
    }

    // A handshake the WebSocket server refuses (bad key), then garbage.
    {
      const { socket, received, ended } = await rawSocket(server.port);
      await write(socket, UPGRADE('/api/current', 'not-a-key'));
      await receivedUntil(socket, received, (b) => b.includes('\r\n\r\n'), 'the refusal');
      expect(received().toString('latin1')).toMatch(/^HTTP\/1\.1 400 /);
      if (!socket.destroyed) socket.write(randomBytes(256), () => undefined);
      socket.destroy();
      await ended;
    }

    // A WebSocket on another path, then binary noise.
    {
      const { socket, received } = await rawSocket(server.port);
      await write(socket, UPGRADE('/elsewhere'));
      await receivedUntil(socket, received, (b) => b.includes('\r\n\r\n'), 'the 404');
      expect(received().toString('latin1')).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
      socket.destroy();
    }

    await assertServing(server);
  });

  it('keeps serving after clients that disconnect before their reply', async () => {
    const server = await startTestServer();
    const listeners = () => server.appliance.events.subscribers();

    // An observer that sees every job (administrator), and job 1 that waits for itself forever.
    const observer = await loggedInWs(server.rpcUrl, server.adminKey);
    await observer.result('core.subscribe', ['core.get_jobs']);
    expect(await observer.result('core.job_wait', [1])).toBe(1);

    // A call known to be in flight on the server (its job was announced) when the client vanishes.
    const pending = await loggedInWs(server.rpcUrl, server.adminKey);
    await pending.result('core.subscribe', ['core.get_jobs']);
    await pending.result('core.set_options', [{ legacy_jobs: false }]);
    expect(listeners()).toBe(2);
    pending.send({ jsonrpc: '2.0', id: 'pending', method: 'core.job_wait', params: [1] });
    const added = await observer.waitFor(
      (m) =>
        m.method === 'collection_update' &&
        m.params?.msg === 'added' &&
        m.params?.fields?.message_ids?.[0] === 'pending',
    );
    pending.terminate();
    expect((await pending.closed).code).toBe(1006);
    expect(pending.messages.some((m) => m.id === 'pending')).toBe(false);

    // Calls sent and the socket killed at once: the replies (if the calls arrived) find no socket.
    const hasty = await loggedInWs(server.rpcUrl, server.adminKey);
    await hasty.result('core.set_options', [{ legacy_jobs: false }]);
    hasty.send({ jsonrpc: '2.0', id: 1, method: 'core.job_wait', params: [999] });
    hasty.send({ jsonrpc: '2.0', id: 2, method: 'auth.me', params: [] });
    hasty.send({ jsonrpc: '2.0', id: 3, method: 'core.get_jobs', params: [] });
    hasty.terminate();

    // Anonymous: a login sent and the socket killed.
    const anonymous = await connectWs(server.rpcUrl);
    anonymous.send({ jsonrpc: '2.0', id: 'login', method: 'auth.login_with_api_key', params: [server.adminKey] });
    anonymous.terminate();

    // The server drops the closed connection's subscription; the observer's stays.
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: SAFETY_MS, interval: 10 });
    // The vanished client's job is still there, still waiting: only the connection went away.
    const [job] = (await observer.call('core.get_jobs', [[['id', '=', added.params.id]]])).result as {
      state: string;
    }[];
    expect(job?.state).toBe('RUNNING');
    expect(await observer.call('core.ping', [], 'still')).toMatchObject({ result: 'pong' });
    await assertServing(server);
  });

  it('keeps serving after 200 connections are dropped at once', async () => {
    // 200 anonymous sockets from one address are past the default cap (limits.ts); that cap is not what is tested here.
    const server = await startTestServer({}, { limits: { maxAnonymousPerAddress: 200 } });
    const clients = await Promise.all(Array.from({ length: 200 }, () => connectWs(server.rpcUrl)));
    expect(clients.every((c) => c.ws.readyState === c.ws.OPEN)).toBe(true);
    // Half of them have a call on the way when they go.
    clients.forEach((c, i) => {
      if (i % 2 === 0) c.send({ jsonrpc: '2.0', id: i, method: 'core.set_options', params: [{ legacy_jobs: false }] });
    });
    for (const c of clients) c.terminate();
    const closes = await Promise.all(clients.map((c) => c.closed));
    expect(closes.every((c) => c.code === 1006)).toBe(true);
    await assertServing(server);
  });

  it('closes cleanly: close() resolves with a client connected, which sees 1001', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const anonymous = await connectWs(server.rpcUrl);
    // An idle keep-alive HTTP connection too.
    const res = await postRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'core.ping' }, { key: server.adminKey });
    expect(res.status).toBe(200);

    await server.close();
    expect(await client.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(await anonymous.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    // Nothing listens any more.
    await expect(connectWs(server.rpcUrl)).rejects.toThrow(/ECONNREFUSED/);
  });
});
