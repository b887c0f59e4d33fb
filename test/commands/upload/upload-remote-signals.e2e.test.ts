import { spawn } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../../helpers/bin.js';
import { remoteEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { agentPidsOf, sessionEnv, until } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const BIG = 768 * 1024 * 1024;
const PART = /^\.stor-put-.*\.part$/;

/** A small file that lands first (the first file goes alone), then two large ones that cost no disk. */
function files(): string[] {
  const dir = tempDir('stor-e2e-files-');
  writeFileSync(join(dir, 'a.txt'), 'alpha\n');
  for (const name of ['b.img', 'c.img']) {
    const fd = openSync(join(dir, name), 'w');
    ftruncateSync(fd, BIG);
    closeSync(fd);
  }
  return ['a.txt', 'b.img', 'c.img'].map((n) => join(dir, n));
}

/**
 * `stor upload a.txt b.img c.img /mnt/tank/multi/ --parallel 1` against a spawned `stor serve`,
 * signalled once b.img's temporary file on the server has bytes in it.
 */
async function uploadSignalled(
  signal: NodeJS.Signals,
  extra: string[],
  session?: { env: Record<string, string>; runtime: string },
) {
  const stateDir = tempDir('stor-serve-state-');
  const server = await spawnServe(stateDir);
  const multi = join(stateDir, 'mnt/tank/multi');
  const env = { STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...remoteEnv(server), ...session?.env };
  if (session) {
    // The first command starts the agent; the upload is then handed to it.
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    await until('the agent serves', () => agentPidsOf(session.runtime).length > 0);
  }
  const child = spawn(
    process.execPath,
    [STOR_BIN, 'upload', ...files(), '/mnt/tank/multi/', '--parallel', '1', ...extra],
    {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, sig) => resolve({ code, signal: sig })),
  );
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the upload ended before the test could stop it: ${stderr}`);
    const part = (() => {
      try {
        return readdirSync(multi).find((n) => PART.test(n));
      } catch {
        return undefined;
      }
    })();
    // More than a.txt's few bytes: b.img is on its way.
    if (part && (statSync(join(multi, part), { throwIfNoEntry: false })?.size ?? 0) > 1024 * 1024) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill(signal);
  const ended = await exited;
  return { ended, stdout, stderr, multi, server };
}

/** The server's temporary file goes once its put has failed; wait for that, bounded by the test's own timeout. */
async function settled(dir: string): Promise<string[]> {
  while (readdirSync(dir).some((n) => PART.test(n))) await new Promise((r) => setTimeout(r, 10));
  return readdirSync(dir);
}

describe('a remote multi-file upload stopped by a signal (built binary against stor serve)', () => {
  for (const [signal, code, errorCode] of [
    ['SIGINT', 130, 'INTERRUPTED'],
    ['SIGTERM', 143, 'TERMINATED'],
  ] as const) {
    it(`${signal} --json: the report on stdout, the error document on stderr, exit ${code}, nothing of the stopped file left`, async () => {
      const run = await uploadSignalled(signal, ['--json']);
      expect(run.ended).toEqual({ code, signal: null });
      const report = JSON.parse(run.stdout) as {
        files: { outcome: string; error: { code: string; message: string } | null }[];
      };
      expect(report.files.map((f) => [f.outcome, f.error?.code ?? null])).toEqual([
        ['done', null],
        ['failed', errorCode],
        ['not_attempted', null],
      ]);
      expect(report.files[1]!.error!.message).toBe(
        `interrupted by ${signal}; /mnt/tank/multi/b.img was not written, and nothing of it was left behind`,
      );
      expect(JSON.parse(run.stderr)).toEqual({
        error: {
          code: errorCode,
          kind: errorCode.toLowerCase(),
          message: `interrupted by ${signal}: 1 of 3 files uploaded, 1 stopped or failed, 1 not attempted`,
          hint: 'run the same command again with --skip-existing to send the rest',
        },
      });
      expect(await settled(run.multi)).toEqual(['a.txt']);
    });
  }

  it('SIGINT, piped: each file with its outcome, the stopped one on stderr, then the INTERRUPTED error', async () => {
    const run = await uploadSignalled('SIGINT', []);
    expect(run.ended).toEqual({ code: 130, signal: null });
    expect(run.stdout.split('\n').map((l) => l.split('\t')[2])).toEqual(['done', 'failed', 'not_attempted', undefined]);
    expect(run.stderr).toBe(
      [
        `stor: ${run.stdout.split('\n')[1]!.split('\t')[0]}: interrupted by SIGINT; /mnt/tank/multi/b.img was not written, and nothing of it was left behind`,
        'stor: interrupted by SIGINT: 1 of 3 files uploaded, 1 stopped or failed, 1 not attempted',
        'hint: run the same command again with --skip-existing to send the rest',
        '',
      ].join('\n'),
    );
  });

  it('through the session agent: SIGTERM reaches the upload there, with the same report and exit 143', async () => {
    const session = sessionEnv();
    const run = await uploadSignalled('SIGTERM', ['--json'], session);
    expect(run.ended).toEqual({ code: 143, signal: null });
    const report = JSON.parse(run.stdout) as { files: { outcome: string; error: { code: string } | null }[] };
    expect(report.files.map((f) => [f.outcome, f.error?.code ?? null])).toEqual([
      ['done', null],
      ['failed', 'TERMINATED'],
      ['not_attempted', null],
    ]);
    expect(JSON.parse(run.stderr).error.code).toBe('TERMINATED');
    expect(await settled(run.multi)).toEqual(['a.txt']);
  });
});
