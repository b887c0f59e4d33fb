import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../../../src/core/appliance/jobs/jobs.js';
import { SAFETY_MS, loggedInWs, startTestServer } from '../../../helpers/server.js';
import { startSplitUpload, until } from '../../../helpers/split-upload.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const BOUNDARY = 'stor-swap-boundary-9d2f';

describe('a directory swapped for a symlink while an upload is in flight', () => {
  it('cannot send the file out of the pool: it lands in the directory that was opened', async () => {
    const server = await startTestServer();
    const pool = join(server.stateDir, 'mnt/tank');
    const outside = tempDir('stor-outside-');
    mkdirSync(join(pool, 'dir/sub'), { recursive: true });

    const upload = startSplitUpload(
      server,
      '/mnt/tank/dir/sub/payload.txt',
      { mode: 420 },
      'first half, ',
      'payload.txt',
    );

    // The source is paused (nothing more is sent) once the temporary file exists beside the target.
    await until(() => readdirSync(join(pool, 'dir/sub')).length > 0, 'the temporary file');
    renameSync(join(pool, 'dir'), join(pool, 'moved'));
    symlinkSync(outside, join(pool, 'dir'));
    mkdirSync(join(outside, 'sub'));

    const job = await upload.finish('second half');

    expect(readdirSync(join(outside, 'sub'))).toEqual([]);
    expect(job.state).toBe('SUCCESS');
    expect(readFileSync(join(pool, 'moved/sub/payload.txt'), 'utf8')).toBe('first half, second half');
    expect(readdirSync(join(pool, 'moved/sub'))).toEqual(['payload.txt']);
  });

  it('a component that is already a symlink leading out of the pool is refused before anything is made', async () => {
    const server = await startTestServer();
    const pool = join(server.stateDir, 'mnt/tank');
    const outside = tempDir('stor-outside-');
    symlinkSync(outside, join(pool, 'link'));
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    const res = await fetch(`${server.url}/_upload/`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        authorization: `Bearer ${server.adminKey}`,
      },
      body:
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n` +
        JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/link/a/b.txt', {}] }) +
        `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
      signal: AbortSignal.timeout(SAFETY_MS),
    });
    const { job_id } = (await res.json()) as { job_id: number };
    await client.call('core.job_wait', [job_id]);
    const job = await client.result<JobEntry>('core.get_jobs', [[['id', '=', job_id]], { get: true }]);
    client.close();
    expect(job.state).toBe('FAILED');
    expect(job.error).toContain('path passes through a symlink that leaves the pool');
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(pool, 'a'))).toBe(false);
  });
});
