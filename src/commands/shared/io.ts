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
  /** Subscribes to SIGINT/SIGTERM for long-running commands (`serve`); returns the unsubscriber. */
  onSignal?(handler: (signal: NodeJS.Signals) => void): () => void;
}

export function processIO(): IO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onSignal(handler) {
      const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
      for (const s of signals) process.on(s, handler);
      return () => {
        for (const s of signals) process.off(s, handler);
      };
    },
  };
}
