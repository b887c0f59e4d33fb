import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../../../src/core/appliance/jobs/jobs.js';
import { SAFETY_MS, startTestServer, type TestServer } from '../../../helpers/server.js';

/*
 * Uploads into a dataset keep coming while a recursive delete of it runs. The
 * delete either completes (row and files gone, the name free again) or leaves the dataset as it
 * was listed (row and directory); each upload either lands or fails with a clear error, and no
 * temporary file is left behind. The upload loop stops by itself: when the delete has answered,
 * after UPLOADS uploads, or after SAFETY_MS.
 */
const DIRS = 10;
const FILES_PER_DIR = 200;
const UPLOADS = 500;
const PARALLEL = 4;
const BOUNDARY = 'stor-delete-race-7b21';

/** One whole upload over real HTTP; resolves with its job id. */
async function upload(server: TestServer, path: string, bytes: string): Promise<number> {
  const body =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n` +
    JSON.stringify({ method: 'filesystem.put', params: [path, {}] }) +
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n` +
    `${bytes}\r\n--${BOUNDARY}--\r\n`;
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      authorization: `Bearer ${server.adminKey}`,
    },
    body,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: number }).job_id;
}

function tree(dir: string): string[] {
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]) : [];
}

describe('a dataset delete racing uploads into it', () => {
  it('either completes (row and files gone, the name free) or leaves the dataset as it was; each upload lands or fails cleanly', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/busy' });
    const root = join(server.stateDir, 'mnt/tank/busy');
    for (let d = 0; d < DIRS; d++) {
      mkdirSync(join(root, `d${d}`));
      for (let f = 0; f < FILES_PER_DIR; f++) writeFileSync(join(root, `d${d}`, `f${f}`), 'x');
    }

    let answered = false;
    const deleting = t.call(t.admin, 'pool.dataset.delete', 'tank/busy', { recursive: true }).then(
      () => ({ ok: true as const }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    void deleting.then(() => (answered = true));
    const jobs: JobEntry[] = [];
    const deadline = Date.now() + SAFETY_MS;
    // Rounds of PARALLEL uploads at once, so that some are in flight whenever the delete moves on.
    for (let i = 0; i < UPLOADS && !answered && Date.now() < deadline; i += PARALLEL) {
      const round = Array.from({ length: PARALLEL }, async (_, k) => {
        const n = i + k;
        const id = await upload(server, `/mnt/tank/busy/new${n % 5}/file${n}`, `upload ${n}\n`);
        await t.appliance.jobs.wait(t.admin, id).catch(() => undefined);
        return t.appliance.jobs.visible(t.admin).find((j) => j.id === id)!;
      });
      jobs.push(...(await Promise.all(round)));
    }
    const outcome = await deleting;
    expect(jobs.length).toBeGreaterThan(0);

    const rows = await t.call<unknown[]>(t.admin, 'pool.dataset.query', [['id', '=', 'tank/busy']]);
    if (outcome.ok) {
      expect(rows).toEqual([]);
      // Nothing of the old dataset is left. An upload that ran after the delete had finished may
      // have made its directories again (filesystem.put makes them, as os.makedirs does): only such
      // acknowledged files may be there.
      const landed = new Set(
        jobs
          .filter((j) => j.state === 'SUCCESS')
          .map((j) => (j.arguments[0] as string).slice('/mnt/tank/busy/'.length)),
      );
      const left = tree(root).filter((p) => !/^new\d$/.test(p));
      expect(left.filter((p) => !landed.has(p))).toEqual([]);
      if (left.length === 0) {
        // The name is free again.
        rmSync(root, { recursive: true, force: true });
        await t.call(t.admin, 'pool.dataset.create', { name: 'tank/busy' });
        expect(tree(root)).toEqual([]);
      }
    } else {
      expect(rows).toHaveLength(1);
      expect(existsSync(root)).toBe(true);
      expect(tree(root).filter((p) => p.endsWith('.part'))).toEqual([]);
    }
    for (const job of jobs) {
      expect(['SUCCESS', 'FAILED']).toContain(job.state);
      if (job.state === 'FAILED') expect(job.error).toMatch(/being deleted|No such file/);
    }
  });
});
