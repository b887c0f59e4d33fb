import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { SAFETY_MS, loggedInWs, startTestServer, type TestServer, type WsClient } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const MiB = 1024 * 1024;

/** A file of `size` random bytes at appliance path /mnt/tank/<name>, written in 1 MiB pieces; answers its sha256. */
function bigFile(server: TestServer, name: string, size: number): string {
  const hash = createHash('sha256');
  const fd = openSync(join(server.stateDir, 'mnt', 'tank', name), 'w');
  for (let left = size; left > 0; left -= MiB) {
    const piece = randomBytes(Math.min(MiB, left));
    hash.update(piece);
    writeSync(fd, piece);
  }
  closeSync(fd);
  return hash.digest('hex');
}

async function setup(): Promise<{ server: TestServer; ws: WsClient }> {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  await ws.result('core.set_options', [{ legacy_jobs: false }]);
  return { server, ws };
}

/** GET of a /_download/ path; the body is hashed as it streams, never held whole. */
async function get(server: TestServer, path: string) {
  const res = await request(`${server.url}${path}`, {
    method: 'GET',
    headersTimeout: SAFETY_MS,
    bodyTimeout: SAFETY_MS,
  });
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of res.body) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { status: res.statusCode, headers: res.headers, size, sha256: hash.digest('hex') };
}

describe('GET /_download/<job_id> (MW/apps/file_app.py:50-117, MW/service/core_service.py:497-530)', () => {
  it('streams a 20 MiB file exactly, chunked with an attachment name and no length; the job then succeeds with null', async () => {
    const { server, ws } = await setup();
    const sha256 = bigFile(server, 'big.bin', 20 * MiB);
    const [jobId, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/big.bin'],
      'big.bin',
    ]);
    const got = await get(server, url);
    expect({ status: got.status, size: got.size, sha256: got.sha256 }).toEqual({ status: 200, size: 20 * MiB, sha256 });
    expect(got.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="big.bin"',
      'transfer-encoding': 'chunked',
    });
    expect(got.headers['content-length']).toBeUndefined();
    expect(await ws.result('core.job_wait', [jobId])).toBeNull();
  });

  it('the token is single-use: a second GET of the same URL is 401', async () => {
    const { server, ws } = await setup();
    bigFile(server, 'a.bin', 1000);
    const [, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.bin'],
      'a.bin',
    ]);
    expect((await get(server, url)).status).toBe(200);
    expect((await get(server, url)).status).toBe(401);
  });

  it('401 without a token, with an expired one, or with one for another job; 404 for a path without an id; no token can name a job that does not exist', async () => {
    const { server, ws } = await setup();
    const sha256 = bigFile(server, 'a.bin', 1000);
    const [jobId, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.bin'],
      'a.bin',
    ]);
    expect((await get(server, `/_download/${jobId}`)).status).toBe(401);
    const expired = await ws.result<string>('auth.generate_token', [0, { filename: 'a.bin', job: jobId }, true, true]);
    expect((await get(server, `/_download/${jobId}?auth_token=${expired}`)).status).toBe(401);
    // A token for a job that does not exist cannot be made (MW/plugins/auth.py:417-420).
    expect(
      (await ws.call('auth.generate_token', [300, { filename: 'x', job: 99999 }, true, true])).error?.data?.reason,
    ).toBe('[EFAULT] 99999: job does not exist.');
    const forThisJob = await ws.result<string>('auth.generate_token', [
      300,
      { filename: 'a.bin', job: jobId },
      true,
      true,
    ]);
    expect((await get(server, `/_download/99999?auth_token=${forThisJob}`)).status).toBe(401);
    const another = await ws.result<string>('auth.generate_token', [
      300,
      { filename: 'a.bin', job: jobId },
      true,
      true,
    ]);
    expect((await get(server, `/_download/abc?auth_token=${another}`)).status).toBe(404);
    // None of that spent the download itself.
    expect(await get(server, url)).toMatchObject({ status: 200, size: 1000, sha256 });
  });

  it('410 once nobody fetched the bytes in time: the job failed with a broken pipe', async () => {
    const { server, ws } = await setup();
    bigFile(server, 'a.bin', 1000);
    server.appliance.downloads.windowMs.unbuffered = 50;
    const [jobId, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.bin'],
      'a.bin',
    ]);
    const failed = await ws.call('core.job_wait', [jobId]);
    expect(failed.error?.data?.reason).toContain('Broken pipe');
    expect((await get(server, url)).status).toBe(410);
  });

  it('a path that is not a file: the GET has an empty body and the job fails with "<path> is not a file" (EFAULT)', async () => {
    const { server, ws } = await setup();
    const [jobId, url] = await ws.result<[number, string]>('core.download', ['filesystem.get', ['/mnt/tank'], 'tank']);
    expect(await get(server, url)).toMatchObject({ status: 200, size: 0 });
    const failed = await ws.call('core.job_wait', [jobId]);
    expect(failed.error?.data).toMatchObject({ errname: 'EFAULT', reason: '[EFAULT] /mnt/tank is not a file' });
  });

  it('buffered: the job ends before the GET, which then streams what it spooled', async () => {
    const { server, ws } = await setup();
    const sha256 = bigFile(server, 'b.bin', 3 * MiB + 17);
    const [jobId, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/b.bin'],
      'b.bin',
      true,
    ]);
    expect(await ws.result('core.job_wait', [jobId])).toBeNull();
    expect(await get(server, url)).toMatchObject({ status: 200, size: 3 * MiB + 17, sha256 });
  });

  it('a user whose roles do not reach filesystem.get gets no URL at all (EACCES)', async () => {
    const { server } = await setup();
    const { key } = await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const reader = await loggedInWs(server.rpcUrl, key);
    const reply = await reader.call('core.download', ['filesystem.get', ['/mnt/tank/a.bin'], 'a.bin']);
    expect(reply.error?.data).toMatchObject({ errname: 'EACCES', reason: '[EACCES] Not authorized' });
  });

  it('curl fetches the URL as a browser would', async () => {
    const { server, ws } = await setup();
    const sha256 = bigFile(server, 'c.bin', 2 * MiB);
    const [, url] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/c.bin'],
      'c.bin',
    ]);
    const out = join(tempDir(), 'c.bin');
    try {
      await promisify(execFile)('curl', ['-sS', '--fail', '-o', out, `${server.url}${url}`], { timeout: SAFETY_MS });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // no curl on this machine
      throw err;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(out)) hash.update(chunk as Buffer);
    expect(hash.digest('hex')).toBe(sha256);
  });
});

describe('stor serve shutting down with a download nobody fetched', () => {
  it('does not wait for its GET: the job ends with a broken pipe and the server closes', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    bigFile(server, 'a.bin', 1000);
    const [jobId] = await ws.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.bin'],
      'a.bin',
    ]);
    // A grace far beyond the test's safety net: only the closed pipe lets close() return in time.
    await server.close(10 * SAFETY_MS);
    const [job] = server.appliance.jobs.visible(server.testAppliance.admin).filter((j) => j.id === jobId);
    expect(job).toMatchObject({ state: 'FAILED', error: '[Errno 32] Broken pipe' });
  });
});
