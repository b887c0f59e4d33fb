import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHEAP_HASHES } from './cheap-hashes.js';
import { EMBEDDED_MEANT } from './embedded-meant.js';

export const STOR_BIN = fileURLToPath(new URL('../../bin/stor.js', import.meta.url));

export { CHEAP_HASHES };

export interface SpawnResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a spawned `stor` runs in: no session agent, cheap hashes, results checked, then `env`. */
export function storProcessEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    STOR_SESSION: 'off',
    ...EMBEDDED_MEANT,
    STOR_CHECK_RESULTS: '1',
    ...CHEAP_HASHES,
    ...env,
  };
}

/**
 * Spawns the built `bin/stor.js` as a user would (run `npm run build` first; `npm test` does).
 * `killAfterMs` bounds a run that could hang (the failure a test guards against): the child is
 * killed then, and its null exit code fails the test instead of stalling the suite.
 */
export function spawnStor(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    stdin?: string;
    stdinFrom?: string;
    cwd?: string;
    killAfterMs?: number;
    umask?: number;
  } = {},
): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const [file, argv] = commandUnder(options.umask, [STOR_BIN, ...args]);
    const child = spawn(file, argv, {
      env: storProcessEnv(options.env),
      // `stdinFrom`: standard input is that file itself, as a shell's `< file` makes it.
      stdio: [options.stdinFrom !== undefined ? openSync(options.stdinFrom, 'r') : 'pipe', 'pipe', 'pipe'],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.killAfterMs !== undefined ? { timeout: options.killAfterMs, killSignal: 'SIGKILL' as const } : {}),
    });
    collectOutput(child, options.stdin ?? '').then(resolve, reject);
  });
}

/**
 * `node ARGS` as spawn takes it; with `umask`, through a shell that sets it first (`umask 077;
 * stor …`), since a child inherits its parent's umask and this process's must not change.
 */
export function commandUnder(umask: number | undefined, args: string[]): [string, string[]] {
  if (umask === undefined) return [process.execPath, args];
  return [
    '/bin/sh',
    ['-c', `umask ${umask.toString(8).padStart(3, '0')} && exec "$@"`, 'sh', process.execPath, ...args],
  ];
}

/** Feeds `stdin` to a child with piped streams and resolves with its exit code and all it wrote. */
export function collectOutput(
  child: ChildProcess,
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child that exits before it reads its input (most commands never read it) closes the pipe
    // under this write: EPIPE, which is no failure of the command; its exit code and output are.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin);
  });
}
