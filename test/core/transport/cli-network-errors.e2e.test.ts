import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

const KEY = `1-${'A'.repeat(64)}`;
const ENOENT: StandinAnswer = {
  error: {
    code: -32001,
    message: 'Method call error',
    data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] no', trace: null, extra: null },
  },
};
const LIMIT = 'Rate limit exceeded: 20 requests per minute';

function stor(baseUrl: string, args: string[]) {
  return spawnStor(['--url', baseUrl, '--json', ...args], {
    env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
  });
}

function bigFile(): string {
  const path = join(tempDir(), 'big.bin');
  writeFileSync(path, Buffer.alloc(16 * 1024 * 1024, 7));
  return path;
}

/** A TCP server that does `onSocket` with each connection: a listener that never answers, say. */
async function rawServer(onSocket: (s: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onSocket(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('network failures are told as they happened', () => {
  it('a 429 from the upload endpoint, which answers before reading the body and drops the socket: rate limiting, with status and body', async () => {
    // Whether stor reads that answer before its next write fails is a race it must win either way.
    const nas = await startStandinAppliance(
      { 'auth.login_with_api_key': { result: true }, 'filesystem.stat': ENOENT },
      (req, res) => {
        res.writeHead(429, { 'content-type': 'text/plain', connection: 'close' }).end(LIMIT);
        req.once('data', () => req.socket.destroy());
      },
    );
    const r = await stor(nas.baseUrl, ['upload', bigFile(), '/mnt/tank/big.bin']);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.code, r.stderr).toBe(3);
    const error = JSON.parse(r.stderr).error;
    expect(error).toMatchObject({ code: 'RATE_LIMITED', kind: 'unreachable' });
    expect(error.message).toContain(`HTTP 429 ${LIMIT}`);
  });

  it('a server that drops the upload mid-body without answering: told as it happened, with how far it got', async () => {
    const nas = await startStandinAppliance(
      { 'auth.login_with_api_key': { result: true }, 'filesystem.stat': ENOENT },
      (req, res) => {
        if (req.headers['content-length'] === '0') return void res.writeHead(400).end('no data');
        req.once('data', () => req.socket.destroy());
      },
    );
    const r = await stor(nas.baseUrl, ['upload', bigFile(), '/mnt/tank/big.bin']);
    expect(r.code, r.stderr).toBe(3);
    const error = JSON.parse(r.stderr).error;
    expect(error.code).toBe('CONNECTION_CLOSED');
    expect(error.message).toMatch(
      / closed the connection during the upload, after \d+\.\d s and \d+ of 16777216 bytes, without an answer$/,
    );
  });

  it('a 429 from POST /api/current (--rpc http): rate limiting, with the body', async () => {
    const nas = await startStandinAppliance({}, undefined, (req, res) => {
      res.writeHead(429, { 'content-type': 'text/plain', connection: 'close' }).end(LIMIT);
      req.socket.destroy();
    });
    const r = await stor(nas.baseUrl, ['--rpc', 'http', 'whoami']);
    expect(r.code, r.stderr).toBe(3);
    const error = JSON.parse(r.stderr).error;
    expect(error).toMatchObject({ code: 'RATE_LIMITED', kind: 'unreachable' });
    expect(error.message).toContain(`HTTP 429 ${LIMIT}`);
    expect(error.message).toContain('auth.me');
  });

  it('an upload the server refuses reports its status and body', async () => {
    const nas = await startStandinAppliance(
      { 'auth.login_with_api_key': { result: true }, 'filesystem.stat': ENOENT },
      (req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(507, { 'content-type': 'text/plain' }).end('pool tank is full'));
      },
    );
    const dir = tempDir();
    writeFileSync(join(dir, 'f'), 'hello');
    const r = await stor(nas.baseUrl, ['upload', join(dir, 'f'), '/mnt/tank/f']);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'UPLOAD_REFUSED',
      message: `${nas.baseUrl} refused the upload: HTTP 507 pool tank is full`,
    });
  });

  for (const rpc of [[], ['--rpc', 'http']]) {
    it(`a server that accepts the connection and never answers: --timeout 2 is what is reported (${rpc.length ? '--rpc http' : 'WebSocket'})`, async () => {
      const url = await rawServer(() => undefined);
      const r = await stor(url, [...rpc, '--timeout', '2', 'whoami']);
      expect(r.code, r.stderr).toBe(3);
      const error = JSON.parse(r.stderr).error;
      expect(error).toMatchObject({ code: 'TIMEOUT', kind: 'unreachable' });
      expect(error.message).toMatch(/ within 2 s$/);
    });

    it(`a connection reset at once is reported with the time it really took, not --timeout (${rpc.length ? '--rpc http' : 'WebSocket'})`, async () => {
      const url = await rawServer((s) => s.resetAndDestroy());
      const r = await stor(url, [...rpc, '--timeout', '30', 'whoami']);
      expect(r.code, r.stderr).toBe(3);
      const error = JSON.parse(r.stderr).error;
      expect(error.code).toBe('UNREACHABLE');
      expect(error.message).toMatch(/: connection reset after \d+\.\d s$/);
      expect(error.message).not.toContain('30 s');
    });
  }
});
