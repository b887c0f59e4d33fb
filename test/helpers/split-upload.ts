import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { JobEntry } from '../../src/core/appliance/jobs/jobs.js';
import { SAFETY_MS, loggedInWs, type TestServer } from './server.js';

const BOUNDARY = 'stor-split-upload-boundary-5c1e';

/** Polls (bounded in count and time) until `ready()` holds. */
export async function until(ready: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + SAFETY_MS; !ready(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
  }
}

/**
 * An upload over real HTTP whose body is sent in two halves: the data part and `first` now, the
 * rest when `finish` is called, so a test can change the world while the server holds the upload
 * half-written. `finish` waits for the job and resolves with its final entry.
 */
export function startSplitUpload(
  server: Pick<TestServer, 'url' | 'rpcUrl' | 'adminKey'>,
  path: string,
  options: Record<string, unknown>,
  first: string,
  filename = 'part',
) {
  const req = request(`${server.url}/_upload/`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      authorization: `Bearer ${server.adminKey}`,
    },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (text += c))
        .on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n` +
      JSON.stringify({ method: 'filesystem.put', params: [path, options] }) +
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n` +
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
