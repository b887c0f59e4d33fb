import { describe, expect, it } from 'vitest';
import { clientEnv } from '../helpers/client-env.js';
import { runStor } from '../helpers/run-stor.js';

// NO_PASSWORD's hint is longer than a line of 80 (src/commands/user/create.ts).
const HINT =
  'pipe one to --password-stdin (first line), or pass --password-disabled for a user that logs in with API keys only';

/** The words of stderr, as a person reads them: line breaks and the indent they bring are spaces. */
const words = (text: string): string => text.replace(/\n +/g, ' ').replace(/\n(?=.)/g, ' ');

/**
 * An error on a terminal wraps at word boundaries to the terminal's width, `stor: ` and `hint: `
 * kept and later lines indented under the text (docs/COMMANDS.md "Output"); piped, each stays
 * one line, as scripts parse it.
 */
describe('errors and hints on stderr', () => {
  for (const columns of [40, 80]) {
    it(`on a terminal of ${columns} columns: no line longer, no word broken, the words all there`, async () => {
      const r = await runStor(['user', 'create', 'wrapme'], { env: clientEnv(), tty: true, columns });
      expect(r.code).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^stor: no password given/);
      const hintAt = lines.findIndex((l) => l.startsWith('hint: '));
      expect(hintAt).toBeGreaterThan(0);
      for (const line of lines.slice(1)) if (!line.startsWith('hint: ')) expect(line).toMatch(/^ {6}\S/);
      expect(words(r.stderr.trimEnd())).toBe(`stor: no password given for wrapme hint: ${HINT}`);
      // Every word whole: each is one of the hint's or the message's.
      const known = new Set(`stor: no password given for wrapme hint: ${HINT}`.split(' '));
      for (const word of r.stderr.split(/\s+/).filter((w) => w !== '')) expect(known.has(word), word).toBe(true);
    });
  }

  it('piped: one line each, however long', async () => {
    const r = await runStor(['user', 'create', 'wrapme'], { env: clientEnv(), tty: false, columns: 40 });
    expect(r.stderr).toBe(`stor: no password given for wrapme\nhint: ${HINT}\n`);
  });
});
