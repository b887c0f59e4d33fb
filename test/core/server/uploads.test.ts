import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { SAFETY_MS, loggedInWs, startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * Uploads have no total time limit while bytes flow, only a stall (idle) timeout, and
 * the CLI reports that cut as a timeout (exit 3). The server's idle timeout is lowered to 1 s
 * here, so "longer than the timeout" takes seconds, not the 300 s of Node's default; the trickle's
 * gaps are a tenth of it, so a loaded machine (the suite run twice at once) does not make them one.
 */
const IDLE_MS = 1000;
/** The trickle's pieces, 100 ms apart: 6× the idle timeout in all. */
const PIECES = (6 * IDLE_MS) / 100;
const BOUNDARY = 'stor-security-boundary';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function multipartHead(path: string): Buffer {
  const data = JSON.stringify({ method: 'filesystem.put', params: [path, {}] });
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n${data}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
}
const multipartTail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A proxy that passes everything except an upload's body past its first `keep` bytes: a stalled link. */
async function stallingProxy(port: number, keep: number): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let upload: boolean | undefined;
    let passed = 0;
    client.on('data', (chunk: Buffer) => {
      upload ??= chunk.toString('latin1').startsWith('POST /_upload');
      if (!upload) return void upstream.write(chunk);
      // Past `keep`, the bytes are read (the client goes on sending) and never arrive.
      if (passed < keep) upstream.write(chunk.subarray(0, keep - passed));
      passed += chunk.length;
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('uploads: an idle timeout, no total time limit', () => {
  it(`an upload that trickles for 6× the ${IDLE_MS} ms idle timeout succeeds with the exact bytes`, async () => {
    const server = await startTestServer({}, { limits: { uploadIdleMs: IDLE_MS } });
    const bytes = randomBytes(PIECES * 512);
    const head = multipartHead('/mnt/tank/slow.bin');
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/_upload/`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.adminKey}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': head.length + bytes.length + multipartTail.length,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      void (async () => {
        req.write(head);
        // 60 pieces, 100 ms apart: 6 s in all, never 1 s without a byte.
        for (let i = 0; i < PIECES; i++) {
          req.write(bytes.subarray(i * 512, (i + 1) * 512));
          await sleep(100);
        }
        req.end(multipartTail);
      })();
    });
    const { status, body } = await answer;
    expect(status).toBe(200);
    const jobId = (JSON.parse(body) as { job_id: number }).job_id;
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    await client.result('core.job_wait', [jobId]);
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/slow.bin')))).toBe(sha256(bytes));
  });

  it('an upload that stalls is answered 408 after the idle timeout; `stor upload` exits 3 with TIMEOUT and nothing lands', async () => {
    const server = await startTestServer({}, { limits: { uploadIdleMs: IDLE_MS } });
    const url = await stallingProxy(server.port, 16 * 1024);
    const file = join(tempDir(), 'stalled.bin');
    writeFileSync(file, randomBytes(256 * 1024));
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: url, STOR_API_KEY: server.adminKey };
    const r = await runStor(
      ['upload', file, '/mnt/tank/stalled.bin', '--timeout', String(SAFETY_MS / 1000), '--json'],
      { env },
    );
    const { error } = JSON.parse(r.stderr) as { error: { code: string; kind: string; message: string } };
    expect(error).toMatchObject({ code: 'TIMEOUT', kind: 'unreachable' });
    expect(error.message).toContain('cut the upload off');
    expect(error.message).toContain('408: the upload stalled: no bytes for 1 s');
    expect(r.code).toBe(3);
    expect(existsSync(join(server.stateDir, 'mnt/tank/stalled.bin'))).toBe(false);
  });
});
