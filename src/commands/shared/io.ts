import type { Readable } from 'node:stream';

export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * Everything a command may touch of its process: streams, terminal flags, environment and
 * working directory. `run()` receives one, so tests drive commands in-process with captured
 * streams and any terminal setting.
 */
export interface IO {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: Readable & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export function processIO(): IO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}
