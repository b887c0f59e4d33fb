import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { startThrottleProxy } from '../../helpers/throttle-proxy.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { clientEnv, remoteEnv, localFile } from '../../helpers/client-env.js';

/*
 * The appliance's nginx drops a WebSocket on which the server has sent nothing for 60 s, while the
 * upload itself runs on another connection: its /api location sets no proxy_read_timeout, so
 * nginx's 60 s default applies (MW/etc_files/local/nginx/nginx.conf.mako:242-255). Here
 * `stor serve --ws-idle-timeout 6` does the dropping, and a throttling proxy between the CLI and
 * the server makes the upload take longer than that: 768 KiB at 96 KiB/s, 8 s at the least,
 * however fast the machine. 6 s, not less: the client's keepalive (0.5 s) must reach the server
 * within it, and on a loaded machine a ping can wait seconds behind the client's own work (2 s was
 * too short for that), while only a longer upload is needed for the drop without keepalive.
 */
const IDLE_TIMEOUT = 6;
const RATE = 96 * 1024;
const SIZE = 768 * 1024;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function slowSetup() {
  const server = await spawnServe(tempDir('stor-serve-state-'), [
    '--ws-idle-timeout',
    String(IDLE_TIMEOUT),
    '--role-expansion',
    'truenas-25.10.1',
  ]);
  const proxy = await startThrottleProxy(Number(new URL(server.url).port), RATE);
  const bytes = randomBytes(SIZE);
  return { server, proxy, bytes, file: localFile('slow.bin', bytes) };
}

/** What `stor upload --json` prints for one file, whatever the transport. */
const uploaded = (source: string, target: string) => ({
  files: [
    {
      source,
      target,
      outcome: 'done',
      bytes: SIZE,
      size: SIZE,
      mode: '0644',
      owner: 'truenas_admin',
      job_id: expect.any(Number),
      error: null,
    },
  ],
  summary: { files: 1, done: 1, failed: 0, skipped: 0, not_attempted: 0, bytes_sent: SIZE },
  // The appliance it went to (docs/COMMANDS.md "Output", --json): the proxy's URL, or the embedded one.
  target: expect.objectContaining({ kind: expect.stringMatching(/^(remote|embedded)$/) }),
});

describe('uploads that outlast the proxy idle timeout (stor serve --ws-idle-timeout 6, a throttled link)', () => {
  it('over ws: keepalive pings hold the one WebSocket open; the upload exits 0 with the exact bytes', async () => {
    const { server, proxy, bytes, file } = await slowSetup();
    const env = { ...remoteEnv(server, proxy.baseUrl), STOR_WS_KEEPALIVE: '0.5' };
    const up = await spawnStor(['upload', file, '/mnt/tank/long/ws.bin', '--json'], { env });
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toEqual(uploaded(file, '/mnt/tank/long/ws.bin'));
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/long/ws.bin')))).toBe(sha256(bytes));
    // No reconnect was needed: the pings kept the socket alive.
    expect(proxy.webSockets()).toBe(1);
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain(
      `WebSockets on which the server sends nothing for ${IDLE_TIMEOUT} s are dropped (code 1006)`,
    );
  });

  it('over ws without keepalive (STOR_WS_KEEPALIVE=0): the dropped socket is replaced, logged in again, and the job still found', async () => {
    const { server, proxy, bytes, file } = await slowSetup();
    const env = { ...remoteEnv(server, proxy.baseUrl), STOR_WS_KEEPALIVE: '0' };
    const up = await spawnStor(['upload', file, '/mnt/tank/long/reconnected.bin', '--json'], { env });
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toEqual(uploaded(file, '/mnt/tank/long/reconnected.bin'));
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/long/reconnected.bin')))).toBe(sha256(bytes));
    expect(proxy.webSockets()).toBe(2);
    expect(await server.stop()).toBe(0);
  });

  it('with --rpc http through the same link, and on the embedded target: the same --json', async () => {
    const { server, proxy, bytes, file } = await slowSetup();
    const http = await spawnStor(['--rpc', 'http', 'upload', file, '/mnt/tank/long/http.bin', '--json'], {
      env: remoteEnv(server, proxy.baseUrl),
    });
    expect(http.stderr).toBe('');
    expect(http.code).toBe(0);
    expect(JSON.parse(http.stdout)).toEqual(uploaded(file, '/mnt/tank/long/http.bin'));
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/long/http.bin')))).toBe(sha256(bytes));
    expect(proxy.webSockets()).toBe(0);

    const env = clientEnv();
    const embedded = await spawnStor(['upload', file, '/mnt/tank/long/embedded.bin', '--json'], { env });
    expect(embedded.stderr).toBe('');
    expect(embedded.code).toBe(0);
    expect(JSON.parse(embedded.stdout)).toEqual(uploaded(file, '/mnt/tank/long/embedded.bin'));
    expect(sha256(readFileSync(join(env.STOR_HOME!, 'mnt/tank/long/embedded.bin')))).toBe(sha256(bytes));
    expect(await server.stop()).toBe(0);
  });

  it('a file of many read buffers through a link slower than the disk arrives byte for byte', async () => {
    // The client reads into a few buffers it reads into again once the socket has written them
    // (src/core/transport/upload-client.ts); behind a slow link the socket holds each for a while,
    // and a buffer read into before its write ended would send the wrong bytes.
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const proxy = await startThrottleProxy(Number(new URL(server.url).port), 32 * 1024 * 1024);
    const bytes = randomBytes(24 * 1024 * 1024 + 12345);
    const file = localFile('many-chunks.bin', bytes);
    const up = await spawnStor(['upload', file, '/mnt/tank/long/many-chunks.bin'], {
      env: remoteEnv(server, proxy.baseUrl),
    });
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/long/many-chunks.bin')))).toBe(sha256(bytes));
    expect(await server.stop()).toBe(0);
  });
});
