import { isatty } from 'node:tty';
import type { Readable } from 'node:stream';
import { colorLevelFor } from './color-level.js';

/** Chalk's colour levels: 0 none, 1 basic, 2 256 colours, 3 truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;

export interface OutputStream {
  /** Text; the process's streams take bytes too (`stor download -` writes the file's). */
  write(chunk: string | Uint8Array): unknown;
  /** Where the stream can push back (the process's): the next write after `false` waits for `drain`. */
  once?(event: 'drain', listener: () => void): unknown;
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
  /**
   * The caller's umask: the mode bits the files and directories the command creates must not have
   * (local-file.ts). The process's own; in the session agent, the first stage's, carried by its
   * run request. Absent: the process's own, read when used.
   */
  umask?: number;
  /**
   * How much colour each stream takes. The process and the session agent get chalk's detection
   * (NO_COLOR, FORCE_COLOR, TERM=dumb, CI, the TTY: color-level.ts); tests set it.
   */
  color: { stdout: ColorLevel; stderr: ColorLevel };
  /** Subscribes to SIGINT/SIGTERM for long-running commands (`serve`); returns the unsubscriber. */
  onSignal?(handler: (signal: NodeJS.Signals) => void): () => void;
}

export function processIO(): IO {
  return {
    // Each made when first used: Node builds process.stdout and process.stderr on first access
    // (for a pipe a net.Socket, ~2 ms of CPU on Node 24), which the head start's login frame
    // (startup/early-target.ts) should not wait for: nothing is written before it leaves.
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    // Node builds process.stdin on first access too (a file's stream alone loads fs/promises and
    // readline's interface), which most commands never need.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    umask: process.umask(),
    color: { stdout: colorLevelFor(process.env, isatty(1)), stderr: colorLevelFor(process.env, isatty(2)) },
    onSignal(handler) {
      const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
      for (const s of signals) process.on(s, handler);
      return () => {
        for (const s of signals) process.off(s, handler);
      };
    },
  };
}
