import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { run } from '../../src/cli.js';
import { readCommandLine } from '../../src/commands/framework/command-line.js';
import type { ColorLevel, IO } from '../../src/commands/output/io.js';
import type { SessionOpener } from '../../src/core/session/opener.js';
import { EMBEDDED_MEANT } from './embedded-meant.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Pretend stdout (and stdin, stderr) are a terminal. */
  tty?: boolean;
  stdin?: string;
  /** Terminal width of stdout and stderr (100 unless given). */
  columns?: number;
  /** Colour level of both streams: 1 on a terminal, 0 when piped, unless given. */
  color?: ColorLevel;
  /** The working directory the command sees (default: the test process's). */
  cwd?: string;
  /** As inside the session agent: remote targets open as leases on this pool. */
  sessions?: SessionOpener;
}

/** Runs `stor` in-process with captured streams: the same `run()` the binary calls. */
export async function runStor(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const tty = options.tty ?? false;
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]) as IO['stdin'];
  Object.assign(stdin, { isTTY: tty });
  const columns = options.columns ?? 100;
  const color = options.color ?? (tty ? 1 : 0);
  const io: IO = {
    stdout: { write: (s: string) => (stdout += s), isTTY: tty, columns },
    stderr: { write: (s: string) => (stderr += s), isTTY: tty, columns },
    color: { stdout: color, stderr: color },
    stdin,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, ...options.env },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await run(readCommandLine(argv), io, options.sessions ? { sessions: options.sessions } : {});
  return { code, stdout, stderr };
}

/**
 * `stor(env)` of runbook.ts, in-process: the same `run()` the binary calls, with the same
 * environment, failing the test with stderr when the exit code is not the one expected. For the
 * many runs of a scenario that check what a command does, not what the process does (a spawn is
 * ≈0.2 s of CPU above the command itself, bench/HISTORY.md); each file keeps the spawns that check
 * the binary. `sessions`: as the session agent runs them, remote targets opened as leases on that
 * pool (one login for many commands, as `stor serve` allows 20 a minute from one address).
 */
export function storIn(env: Record<string, string | undefined>, sessions?: SessionOpener) {
  return async (args: string[], expectCode = 0, stdin?: string): Promise<RunResult> => {
    const r = await runStor(args, {
      env,
      ...(stdin !== undefined ? { stdin } : {}),
      ...(sessions !== undefined ? { sessions } : {}),
    });
    expect(r.code, `stor ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
    return r;
  };
}
