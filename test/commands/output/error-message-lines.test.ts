import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../../src/commands/output/columns.js';
import { wrapWords, writeError } from '../../../src/commands/output/print-error.js';

const described = (message: string) => ({ code: 1, kind: 'failed', errorCode: 'EINVAL', message });

function written(message: string, json = false): string {
  let out = '';
  writeError({ write: (s: string | Uint8Array) => (out += String(s)) }, described(message), json);
  return out;
}

describe('an appliance message with line breaks', () => {
  it('is printed as lines, the later ones indented, never as the two characters \\n', () => {
    expect(
      written('[EINVAL] user.create.shell: Please select a valid shell.\nValid shells: /usr/bin/bash, /usr/bin/zsh'),
    ).toBe(
      'stor: [EINVAL] user.create.shell: Please select a valid shell.\n  Valid shells: /usr/bin/bash, /usr/bin/zsh\n',
    );
    expect(written('one\r\ntwo')).toBe('stor: one\n  two\n');
  });

  it("still shows other controls, so an indented line cannot pass for one of stor's", () => {
    expect(written('a\n\u001b[2Kstor: ok')).toBe('stor: a\n  \\x1b[2Kstor: ok\n');
  });

  it('keeps the message as it is under --json', () => {
    expect(JSON.parse(written('one\ntwo', true)).error.message).toBe('one\ntwo');
  });
});

describe('a message wrapped to a terminal', () => {
  it('breaks only at a lone space: a run of spaces stays, with the words around it', () => {
    const lines = wrapWords('stor: ', 'no such file: /mnt/tank/reports  2026/quarterly  summary.pdf', 60, '      ');
    expect(lines).toEqual(['stor: no such file:', '      /mnt/tank/reports  2026/quarterly  summary.pdf']);
  });

  it('counts a wide character as two columns, so no line is wider than the terminal', () => {
    const lines = wrapWords(
      'stor: ',
      'no such file: /mnt/tank/四半期報告書 取締役会向け 最終版 確認済み',
      30,
      '      ',
    );
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(30);
  });

  it('never breaks a word, even one wider than the line', () => {
    const long = '/mnt/tank/' + 'x'.repeat(60);
    expect(wrapWords('stor: ', `no such file: ${long} here`, 40, '      ')).toEqual([
      'stor: no such file:',
      `      ${long}`,
      '      here',
    ]);
  });
});
