/**
 * An error's text on a terminal is the text: the path a message names, its runs of spaces and
 * all, reads back as it was given; and a line stor breaks to fit the terminal fits it in columns
 * (a CJK character takes two). Passes on main (which breaks no line); a build that wraps stderr
 * (STOR_BIN_UNDER_TEST) is held to it: wrapWords splitting on / +/ and counting UTF-16 units fails it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CHEAP_HASHES } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';
import { BIN_UNDER_TEST } from '../../helpers/stor-under-test.js';

/** Runs the binary on a pseudo-terminal of `columns` columns (util-linux `script`); what it showed, \r\n as \n. */
function onTerminal(args: string[], columns: number): Promise<string> {
  const command = `stty cols ${columns}; ${[process.execPath, BIN_UNDER_TEST, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STOR_SESSION: 'off',
      ...EMBEDDED_MEANT,
      NO_COLOR: '1',
      TERM: 'dumb',
      ...CHEAP_HASHES,
      ...clientEnv(),
    },
  });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (shown += d));
  return new Promise((resolve) => child.on('close', () => resolve(shown.replace(/\r\n/g, '\n'))));
}

/** Display columns: East Asian wide characters take two. */
const columnsOf = (line: string): number =>
  [...line].reduce(
    (n, ch) =>
      n +
      (/[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/.test(ch)
        ? 2
        : 1),
    0,
  );

describe('an error on a terminal', () => {
  it('names a path with runs of spaces as it is: a broken line reads back as one, not with single spaces', async () => {
    // Fails where the wrap splits the text on / +/ and joins the words with one space.
    const path = '/mnt/tank/reports  2026/quarterly  summary  for  the  board.pdf';
    const shown = await onTerminal(['stat', path], 60);
    // A line stor broke continues, indented, on the next: joined back with the one space it took.
    const joined = shown.replace(/\n {4,}/g, ' ');
    expect(joined).toContain(`no file or directory ${path}`);
  });

  it('broken to fit, fits: no line wider than the terminal, a CJK character counted as two columns', async () => {
    // Fails where the wrap measures a line in UTF-16 units: the terminal then breaks it again, mid-word.
    const shown = await onTerminal(['stat', '/mnt/tank/四半期報告書 取締役会向け 最終版 二〇二六年 会議資料'], 40);
    const lines = shown.trimEnd().split('\n');
    // Only a build that breaks lines promises a width; one that breaks none leaves them whole.
    if (lines.some((l) => /^ {6}\S/.test(l)))
      for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(40);
  });
});
