/**
 * A download's bytes go only to whoever may read its job. 25.10.1 binds them
 * there when a token naming a job is made: `auth.generate_token` with `attrs.job` refuses a job
 * that does not exist, one the caller may not access (`Job.credential_access_error`, its owner's
 * user or a full administrator), and one without an output pipe (MW/plugins/auth.py:417-426,
 * MW/job.py:350-367); /_download/ then trusts the token's `job` (MW/apps/file_app.py:58-75).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { SAFETY_MS, loggedInWs, startTestServer, type TestServer } from '../../helpers/server.js';

const SECRET = 'TOP-SECRET-CONTENT';

async function get(server: TestServer, path: string) {
  const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(SAFETY_MS) });
  return { status: res.status, body: await res.text() };
}

const refused = (reason: string) => ({
  code: -32001,
  data: { error: 14, errname: 'EFAULT', reason: `[EFAULT] ${reason}` },
});

describe('a download belongs to whoever may read its job (MW/plugins/auth.py:417-426)', () => {
  it('a FILESYSTEM_ATTRS_READ user cannot make a token for an administrator`s download, so never reads its bytes', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    writeFileSync(join(server.stateDir, 'mnt', 'tank', 'secret.txt'), SECRET);
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    // Buffered: the job spools and ends, so its bytes wait for a GET as long as the attack would need.
    const [jobId, url] = await admin.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/secret.txt'],
      'secret.txt',
      true,
    ]);
    const { key } = await createUserWithKey(server.testAppliance, 'lowly', {
      privilegeRoles: ['FILESYSTEM_ATTRS_READ'],
    });
    const low = await loggedInWs(server.rpcUrl, key);

    // The attack polled job ids; every id up to well past the admin's is refused (bounded: 20 ids).
    for (let id = 1; id <= jobId + 10; id++) {
      const reply = await low.call('auth.generate_token', [300, { filename: 'x', job: id }, true, true]);
      const expected = id === jobId ? `${id}: Job is not owned by current session` : `${id}: job does not exist.`;
      expect(reply.error, `job ${id}`).toMatchObject(refused(expected));
    }
    // A token without a job opens no download either.
    const plain = await low.result<string>('auth.generate_token', [300, {}, true, true]);
    expect((await get(server, `/_download/${jobId}?auth_token=${plain}`)).status).toBe(401);
    // The administrator's own URL still has every byte: nothing above spent it.
    expect(await get(server, url)).toEqual({ status: 200, body: SECRET });
  });

  it('a token may name only a job with an output pipe, and the owner may name their own download', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    writeFileSync(join(server.stateDir, 'mnt', 'tank', 'mine.txt'), 'mine');
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    // With legacy_jobs (the default) a job method answers its job id: this one has no pipe.
    const plainJob = await admin.result<number>('core.job_wait', [999]);
    expect((await admin.call('auth.generate_token', [300, { job: plainJob }, true, true])).error).toMatchObject(
      refused(`${plainJob}: job is not suitable for download token`),
    );
    const [jobId] = await admin.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/mine.txt'],
      'mine.txt',
      true,
    ]);
    const own = await admin.result<string>('auth.generate_token', [
      300,
      { filename: 'mine.txt', job: jobId },
      true,
      true,
    ]);
    expect(await get(server, `/_download/${jobId}?auth_token=${own}`)).toEqual({ status: 200, body: 'mine' });
  });
});
