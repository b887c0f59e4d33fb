import { Readable } from 'node:stream';
import type { IO } from '../../src/commands/output/io.js';

/**
 * An in-process IO, not a terminal, whose stdout calls `onOut` with all it has written so far after
 * each write: a test reacts to what a command has printed while the command still runs.
 */
export function observedIo(
  env: Record<string, string | undefined>,
  onOut: (stdout: string) => void,
): IO & { out(): string } {
  let stdout = '';
  return {
    stdout: {
      write: (s: string) => {
        stdout += s;
        onOut(stdout);
        return true;
      },
      isTTY: false,
    },
    stderr: { write: () => true, isTTY: false },
    color: { stdout: 0, stderr: 0 },
    stdin: Object.assign(Readable.from([]), { isTTY: false }) as IO['stdin'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...env },
    cwd: process.cwd(),
    out: () => stdout,
  };
}
