/**
 * `stor call` waiting for a job: the wait is bounded by --timeout
 * and ended by Ctrl-C, as every other job wait is.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { collectOutput, spawnStor, STOR_BIN } from '../../helpers/bin.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

const SAFETY_NET_MS = 45_000;
const KEY = `1-${'A'.repeat(64)}`;

function job(id: number, state: string, percent: number | null) {
  return {
    id,
    message_ids: [],
    method: 'filesystem.setperm',
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

async function applianceWithStuckJob() {
  return startStandinAppliance({
    'auth.login_with_api_key': { result: true },
    'auth.mechanism_choices': { error: { code: -32601, message: 'Method does not exist' } },
    'filesystem.setperm': { result: 9 },
    'core.set_options': { result: null },
    'core.job_wait': { silent: true },
    'core.get_jobs': { result: [job(9, 'RUNNING', 10)] },
  });
}

describe('stor call and a job that never ends', () => {
  it('--timeout ends the wait (exit 3, the job named), not the safety net', async () => {
    const nas = await applianceWithStuckJob();
    const run = await spawnStor(
      ['--url', nas.baseUrl, '--timeout', '2', 'call', 'filesystem.setperm', '{"path":"/mnt/tank/x","mode":"755"}'],
      {
        env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
        killAfterMs: SAFETY_NET_MS,
      },
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/job 9|JOB_STALLED/);
  });

  it('--no-wait answers the job id at once', async () => {
    const nas = await applianceWithStuckJob();
    const run = await spawnStor(
      ['--url', nas.baseUrl, 'call', '--no-wait', 'filesystem.setperm', '{"path":"/mnt/tank/x","mode":"755"}'],
      {
        env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
        killAfterMs: SAFETY_NET_MS,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('9');
  });

  it('Ctrl-C while waiting ends the command (130), not the safety net', async () => {
    const nas = await applianceWithStuckJob();
    const child = spawn(
      process.execPath,
      [
        STOR_BIN,
        '--url',
        nas.baseUrl,
        '--timeout',
        '60',
        'call',
        'filesystem.setperm',
        '{"path":"/mnt/tank/x","mode":"755"}',
      ],
      {
        env: { ...process.env, STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = collectOutput(child);
    const net = setTimeout(() => child.kill('SIGKILL'), SAFETY_NET_MS);
    while (!nas.calls.includes('core.get_jobs') && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    await output;
    clearTimeout(net);
    // Ended by the interrupt (130, or the signal itself), not by the safety net's SIGKILL.
    expect(child.signalCode === 'SIGINT' || child.exitCode === 130).toBe(true);
  });
});
