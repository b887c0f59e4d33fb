import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../src/core/appliance/jobs.js';
import { SAFETY_MS, loggedInWs, startTestServer, type TestServer } from '../helpers/server.js';

const BOUNDARY = 'stor-append-boundary-3e7a';

/** Polls (bounded in count and time) until `ready()` holds. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + SAFETY_MS; !ready(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
  }
}

/**
 * An upload over real HTTP whose body is sent in two halves: the first now, the rest when
 * `finish` is called. Resolves `finish` with the job's final entry.
 */
function startUpload(server: TestServer, path: string, options: Record<string, unknown>, first: string) {
  const req = request(`${server.url}/_upload/`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, authorization: `Bearer ${server.adminKey}` },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n` +
      JSON.stringify({ method: 'filesystem.put', params: [path, options] }) +
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="part"\r\nContent-Type: application/octet-stream\r\n\r\n` +
      first,
  );
  return {
    async finish(rest: string): Promise<JobEntry> {
      req.end(`${rest}\r\n--${BOUNDARY}--\r\n`);
      const res = await answered;
      expect(res.status).toBe(200);
      const { job_id } = JSON.parse(res.text) as { job_id: number };
      const client = await loggedInWs(server.rpcUrl, server.adminKey);
      await client.result('core.set_options', [{ legacy_jobs: false }]); // so that core.job_wait waits
      await client.call('core.job_wait', [job_id]);
      const job = await client.result<JobEntry>('core.get_jobs', [[['id', '=', job_id]], { get: true }]);
      client.close();
      return job;
    },
  };
}

const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.part'));

describe('two appends to one file at once', () => {
  it('both acknowledged appends are in the file, whole, in some order', async () => {
    const server = await startTestServer();
    const pool = join(server.stateDir, 'mnt/tank');
    writeFileSync(join(pool, 'log.txt'), 'start\n');
    const a = startUpload(server, '/mnt/tank/log.txt', { append: true }, 'AAAA-first-');
    await until(() => temps(pool).length === 1, "the first append's temporary file");
    const b = startUpload(server, '/mnt/tank/log.txt', { append: true }, 'BBBB-first-');
    await until(() => temps(pool).length === 2, "the second append's temporary file");

    const [ja, jb] = await Promise.all([a.finish('AAAA-last\n'), b.finish('BBBB-last\n')]);
    expect([ja.state, jb.state]).toEqual(['SUCCESS', 'SUCCESS']);
    expect(['start\nAAAA-first-AAAA-last\nBBBB-first-BBBB-last\n', 'start\nBBBB-first-BBBB-last\nAAAA-first-AAAA-last\n']).toContain(
      readFileSync(join(pool, 'log.txt'), 'utf8'),
    );
    expect(temps(pool)).toEqual([]);
  });
});
