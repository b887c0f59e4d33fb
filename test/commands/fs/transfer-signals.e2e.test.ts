import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

/** A large file that costs no disk: a transfer still moves every byte of it. */
function sparse(path: string, size: number): void {
  const fd = openSync(path, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
}

/** The built binary with its output collected and its exit awaited. */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [STOR_BIN, ...args], {
    env: { PATH: process.env.PATH, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Waits until `found` names a file with some bytes in it, the child still running. */
async function untilWritten(
  child: ChildProcess,
  stderr: () => string,
  found: () => string | undefined,
): Promise<string> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the command ended before the test could stop it: ${stderr()}`);
    const path = found();
    if (path && statSync(path).size > 0) return path;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Frozen (SIGSTOP) so that `signal` surely lands mid-transfer, then let go; `pid`: a process below `child`. */
function signalFrozen(child: ChildProcess, signal: NodeJS.Signals, pid = child.pid!): void {
  for (const s of ['SIGSTOP', signal, 'SIGCONT'] as const) process.kill(pid, s);
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
    await untilWritten(
      run.child,
      run.stderr,
      () =>
        readdirSync(tank)
          .filter((n) => n.endsWith('.part'))
          .map((n) => join(tank, n))[0],
    );
    signalFrozen(run.child, 'SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    const report = JSON.parse(run.stdout());
    expect(
      report.files.map((f: { outcome: string; error: { code: string } | null }) => [f.outcome, f.error?.code ?? null]),
    ).toEqual([
      ['failed', 'TERMINATED'],
      ['not_attempted', null],
    ]);
    expect(readdirSync(tank)).toEqual([]);
  });

  for (const [signal, code, errorCode] of [
    ['SIGINT', 130, 'INTERRUPTED'],
    ['SIGTERM', 143, 'TERMINATED'],
  ] as const) {
    it(`download -r: ${signal} mid-file removes the temporary file, reports the rest not attempted, exit ${code}`, async () => {
      const { env, tank } = await embedded();
      mkdirSync(join(tank, 'tree'));
      sparse(join(tank, 'tree/a.img'), 512 * 1024 * 1024);
      writeFileSync(join(tank, 'tree/b.txt'), 'beta\n');
      // An empty directory that exists already: the tree goes into it.
      const local = tempDir('stor-dl-tree-');
      const run = start(['download', '-r', '/mnt/tank/tree', local, '--json'], env);
      await untilWritten(run.child, run.stderr, () => {
        const part = readdirSync(local, { withFileTypes: true }).find(
          (e) => e.name.startsWith('.') && e.name.endsWith('.part'),
        );
        return part && join(local, part.name);
      });
      signalFrozen(run.child, signal);
      expect(await run.exited).toEqual({ code, signal: null });
      const report = JSON.parse(run.stdout());
      expect(
        report.files.map((f: { outcome: string; error: { code: string } | null }) => [
          f.outcome,
          f.error?.code ?? null,
        ]),
      ).toEqual([
        ['failed', errorCode],
        ['not_attempted', null],
      ]);
      expect(report.summary).toEqual({ files: 2, done: 0, failed: 1, not_attempted: 1, bytes_received: 0 });
      expect(readdirSync(local)).toEqual([]);
    });
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
  });
});

/** Sends SIGCONT to `pid` each time /proc shows it stopped (state T), until `ended` settles. */
async function keepContinued(pid: number, ended: Promise<unknown>): Promise<void> {
  let done = false;
  void ended.finally(() => (done = true));
  while (!done) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return; // gone
    }
    // The state is the field after the command name's closing parenthesis.
    if (stat.charAt(stat.lastIndexOf(')') + 2) === 'T') {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        return; // ended between the read and the signal
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The children of process `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

describe('Ctrl-C on a terminal during an upload of several files (built binary, embedded)', () => {
  it('the progress line and the report say the same number of files uploaded: none, when the first is cut off', async () => {
    const { env, tank } = await embedded();
    const dir = tempDir('stor-e2e-files-');
    for (const name of ['a.img', 'b.img', 'c.img']) sparse(join(dir, name), 768 * 1024 * 1024);
    // `exec`: the shell script(1) runs becomes stor itself, in the terminal's foreground group.
    const command = `exec '${process.execPath}' '${STOR_BIN}' upload '${join(dir, 'a.img')}' '${join(dir, 'b.img')}' '${join(dir, 'c.img')}' /mnt/tank/`;
    const term = spawn('script', ['-qfec', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
        NO_COLOR: '1',
        TERM: 'dumb',
        ...env,
      },
    });
    let shown = '';
    term.stdout.setEncoding('utf8').on('data', (d: string) => (shown += d));
    const closed = new Promise<number | null>((resolve) => term.on('close', (code) => resolve(code)));
    await untilWritten(
      term,
      () => shown,
      () =>
        readdirSync(tank)
          .filter((n) => n.endsWith('.part'))
          .map((n) => join(tank, n))[0],
    );
    const [stor] = childrenOf(term.pid!);
    // Ctrl-C is SIGINT to the terminal's foreground group, stor alone here: sent while it is frozen,
    // so that it surely lands mid-file. script(1) stops itself when its child stops: both go on.
    // script(1) stops itself when it hears its child stopped, at a moment of its own: a SIGCONT
    // sent once may come before that stop and leave it stopped for good. So it is continued
    // whenever it is seen stopped, until it ends.
    const continuing = keepContinued(term.pid!, closed);
    signalFrozen(term, 'SIGINT', stor!);
    expect(await closed).toBe(130);
    await continuing;
    const lines = shown.split(/\r\n|\r|\n/).map((l) => l.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''));
    const bar = lines.filter((l) => l.startsWith('uploaded ')).at(-1);
    expect(bar).toMatch(/^uploaded 0\/3 files .*stopped by SIGINT/);
    expect(shown).toContain('interrupted by SIGINT: 0 of 3 files uploaded');
    expect(readdirSync(tank).filter((n) => n.endsWith('.img'))).toEqual([]);
  });
});
