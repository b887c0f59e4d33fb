import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

/** Far past `--timeout 2` on any machine; below vitest's 60 s, so a hang fails on its exit code. */
const SAFETY_NET_MS = 45_000;

const KEY = `1-${'A'.repeat(64)}`;

/** A core.get_jobs entry as 25.10.1 lists it (MW/api/v25_10_1/core.py CoreGetJobsItem). */
function job(id: number, state: string, percent: number | null) {
  return {
    id,
    message_ids: [],
    method: 'filesystem.put',
    arguments: [],
    transient: false,
    description: null,
    abortable: false,
    logs_path: null,
    logs_excerpt: null,
    progress: { percent, description: null, extra: null },
    result: null,
    result_encoding_error: null,
    error: null,
    exception: null,
    exc_info: null,
    state,
    time_started: { $date: 1767225600000 },
    time_finished: null,
    credentials: null,
  };
}

const ENOENT: StandinAnswer = {
  error: {
    code: -32001,
    message: 'Method call error',
    data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] not found', trace: null, extra: null },
  },
};

/** An appliance that takes the upload as job 7 and then lets the job run on, as `jobs` says. */
async function applianceWithJob(jobs: () => unknown[]) {
  return startStandinAppliance(
    {
      'auth.login_with_api_key': { result: true },
      'auth.me': { result: {} },
      'filesystem.stat': ENOENT,
      'core.set_options': { result: null },
      'core.job_wait': { silent: true },
      'core.get_jobs': () => ({ result: jobs() }),
    },
    (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"job_id": 7}'));
    },
  );
}

function upload(baseUrl: string, extra: string[]) {
  const dir = tempDir();
  writeFileSync(join(dir, 'f'), 'hello');
  return spawnStor(['--url', baseUrl, ...extra, 'upload', join(dir, 'f'), '/mnt/tank/f'], {
    env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
    // A safety net, not a measure: a wait that never ends is killed, and its null exit code fails the test.
    killAfterMs: SAFETY_NET_MS,
  });
}

describe('--timeout bounds the wait for a job', () => {
  for (const rpc of [[], ['--rpc', 'http']]) {
    it(`a job that never moves ends the command with exit 3, JOB_STALLED (${rpc.length ? '--rpc http' : 'WebSocket'})`, async () => {
      const nas = await applianceWithJob(() => [job(7, 'RUNNING', 10)]);
      // It ends at all (exit 3, not killed by the safety net), however long a loaded machine takes.
      const r = await upload(nas.baseUrl, ['--timeout', '2', '--json', ...rpc]);
      expect(r.code).toBe(3);
      const error = JSON.parse(r.stderr).error;
      expect(error).toMatchObject({ code: E.JOB_STALLED.code, kind: 'unreachable' });
      expect(error.message).toMatch(/^job 7 \(filesystem\.put\) has not moved for \d+\.\d s \(still RUNNING at 10%\)/);
      expect(error.hint).toContain(`stor call core.get_jobs '[["id","=",7]]'`);
    });
  }

  for (const rpc of [[], ['--rpc', 'http']]) {
    it(`job wait on a job that never moves ends after --timeout with exit 3, JOB_STALLED (${rpc.length ? '--rpc http' : 'WebSocket'})`, async () => {
      const nas = await applianceWithJob(() => [job(7, 'RUNNING', 10)]);
      // It ends at all (it used to wait for ever): exit 3, not killed by the safety net.
      const r = await spawnStor(['--url', nas.baseUrl, '--timeout', '2', '--json', ...rpc, 'job', 'wait', '7'], {
        env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
        killAfterMs: SAFETY_NET_MS,
      });
      expect(r.code, r.stderr).toBe(3);
      const error = JSON.parse(r.stderr).error;
      expect(error).toMatchObject({ code: E.JOB_STALLED.code, kind: 'unreachable' });
      expect(error.message).toMatch(/^job 7 \(filesystem\.put\) has not moved for \d+\.\d s \(still RUNNING at 10%\)/);
    });
  }

  it('a job whose progress keeps changing is waited for past --timeout, until it succeeds', async () => {
    // The job moves at every look, and succeeds at the tenth: counted in looks, not by the clock, so
    // a slow machine only makes the looks further apart. The wait polls after 20, 40, … 320 ms, then
    // every 500 ms (src/core/transport/job-wait.ts): ten looks take 2.6 s or more, past --timeout 1.
    let looks = 0;
    const nas = await applianceWithJob(() => {
      looks++;
      return [looks >= 10 ? job(7, 'SUCCESS', 100) : job(7, 'RUNNING', looks * 10)];
    });
    const r = await upload(nas.baseUrl, ['--timeout', '1', '--rpc', 'http']);
    // The job succeeded; the stand-in then reports the target missing, so the size check fails.
    expect(r.stderr).not.toContain(E.JOB_STALLED.code);
    expect(r.stderr).not.toContain('has not moved');
    expect(nas.calls.filter((m) => m === 'core.get_jobs').length).toBe(10);
  });
});
