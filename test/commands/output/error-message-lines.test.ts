import { describe, expect, it } from 'vitest';
import { writeError } from '../../../src/commands/output/print-error.js';

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
