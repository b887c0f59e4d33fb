import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A large file that costs no disk: a transfer still moves every byte of it. */
function sparse(path: string, size: number): void {
  const fd = openSync(path, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
}

/** The built binary with its output collected and its exit awaited. */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [STOR_BIN, ...args], { env: { PATH: process.env.PATH, STOR_SESSION: 'off', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Waits until `found` names a file with some bytes in it, the child still running. */
async function untilWritten(child: ChildProcess, stderr: () => string, found: () => string | undefined): Promise<string> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the command ended before the test could stop it: ${stderr()}`);
    const path = found();
    if (path && statSync(path).size > 0) return path;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Frozen (SIGSTOP) so that `signal` surely lands mid-transfer, then let go. */
function signalFrozen(child: ChildProcess, signal: NodeJS.Signals): void {
  child.kill('SIGSTOP');
  child.kill(signal);
  child.kill('SIGCONT');
}

async function embedded() {
  const env = clientEnv();
  expect((await spawnStor(['whoami'], { env })).code).toBe(0);
  return { env, tank: join(env.STOR_HOME!, 'mnt/tank') };
}

describe('transfers of several files stop on a signal, leaving no temporary files (built binary, embedded)', () => {
  it('upload of two files: SIGTERM during the first leaves the second not attempted, exit 143', async () => {
    const { env, tank } = await embedded();
    const dir = tempDir('stor-e2e-files-');
    sparse(join(dir, 'a.img'), 768 * 1024 * 1024);
    sparse(join(dir, 'b.img'), 768 * 1024 * 1024);
    const run = start(['upload', join(dir, 'a.img'), join(dir, 'b.img'), '/mnt/tank/', '--json'], env);
    await untilWritten(run.child, run.stderr, () => readdirSync(tank).filter((n) => n.endsWith('.part')).map((n) => join(tank, n))[0]);
    signalFrozen(run.child, 'SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    const report = JSON.parse(run.stdout());
    expect(report.files.map((f: { outcome: string; error: { code: string } | null }) => [f.outcome, f.error?.code ?? null])).toEqual([
      ['failed', 'TERMINATED'],
      ['not_attempted', null],
    ]);
    expect(readdirSync(tank)).toEqual([]);
  }, 60_000);

  for (const [signal, code, errorCode] of [['SIGINT', 130, 'INTERRUPTED'], ['SIGTERM', 143, 'TERMINATED']] as const) {
    it(`download -r: ${signal} mid-file removes the temporary file, reports the rest not attempted, exit ${code}`, async () => {
      const { env, tank } = await embedded();
      mkdirSync(join(tank, 'tree'));
      sparse(join(tank, 'tree/a.img'), 512 * 1024 * 1024);
      writeFileSync(join(tank, 'tree/b.txt'), 'beta\n');
      // An empty directory that exists already: the tree goes into it.
      const local = tempDir('stor-dl-tree-');
      const run = start(['download', '-r', '/mnt/tank/tree', local, '--json'], env);
      await untilWritten(run.child, run.stderr, () => {
        const part = readdirSync(local, { withFileTypes: true }).find((e) => e.name.startsWith('.stor-download-'));
        return part && join(local, part.name);
      });
      signalFrozen(run.child, signal);
      expect(await run.exited).toEqual({ code, signal: null });
      const report = JSON.parse(run.stdout());
      expect(report.files.map((f: { outcome: string; error: { code: string } | null }) => [f.outcome, f.error?.code ?? null])).toEqual([
        ['failed', errorCode],
        ['not_attempted', null],
      ]);
      expect(report.summary).toEqual({ files: 2, done: 0, failed: 1, not_attempted: 1, bytes_received: 0 });
      expect(readdirSync(local)).toEqual([]);
    }, 60_000);
  }

  it('upload from standard input: SIGTERM while it is spooled removes the spool, exit 143, nothing sent', async () => {
    const { env, tank } = await embedded();
    const tmp = tempDir('stor-e2e-tmp-');
    const run = start(['upload', '-', '/mnt/tank/', '--name', 'piped.bin'], { ...env, TMPDIR: tmp });
    run.child.stdin!.write(Buffer.alloc(64 * 1024, 1));
    // stdin stays open: the spool is being read when the signal comes.
    await untilWritten(run.child, run.stderr, () => {
      const spool = readdirSync(tmp).find((n) => n.startsWith('stor-stdin-'));
      const file = spool && join(tmp, spool, 'stdin');
      return file && statSync(file, { throwIfNoEntry: false }) ? file : undefined;
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    expect(run.stderr()).toBe('stor: interrupted by SIGTERM while reading standard input; nothing was sent\n');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(tank)).toEqual([]);
  }, 60_000);
});
