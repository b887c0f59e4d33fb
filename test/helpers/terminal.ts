import { spawn } from 'node:child_process';
import { CHEAP_HASHES, STOR_BIN } from './bin.js';
import { EMBEDDED_MEANT } from './embedded-meant.js';

export interface TerminalRun {
  /** Everything the terminal showed (stdout and stderr together, as a pseudo-terminal merges them). */
  shown: string;
  code: number | null;
}

/**
 * Runs `bin/stor` on a pseudo-terminal (util-linux `script`) and, once its question `(y/N)` is
 * showing, runs `whileAsked` (the world changing while the prompt waits), then types `answer`.
 * Event-driven: nothing is answered before the question is on the screen.
 */
export function answerOnTerminal(
  args: string[],
  env: Record<string, string>,
  answer: 'y' | 'n',
  whileAsked: () => Promise<void> = async () => {},
): Promise<TerminalRun> {
  const command = [process.execPath, STOR_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // A wide terminal: these runs are about what is asked and done, and stor breaks its error lines
  // to the terminal's width (80 where it reports none), which would split the texts they look for.
  const child = spawn('script', ['-qfec', `stty cols 500 2>/dev/null; exec ${command}`, '/dev/null'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STOR_SESSION: 'off',
      ...EMBEDDED_MEANT,
      NO_COLOR: '1',
      TERM: 'dumb',
      ...CHEAP_HASHES,
      ...env,
    },
  });
  let shown = '';
  let asked = false;
  let failed: unknown;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    shown += d;
    if (asked || !shown.includes('(y/N)')) return;
    asked = true;
    whileAsked().then(
      () => child.stdin.write(`${answer}\r`),
      (err: unknown) => {
        failed = err;
        // Declined: whatever went wrong in the test, nothing is changed by the run.
        child.stdin.write('n\r');
      },
    );
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      failed === undefined
        ? resolve({ shown: shown.replace(/\r\n/g, '\n'), code })
        : reject(failed instanceof Error ? failed : new Error(String(failed))),
    ),
  );
}
