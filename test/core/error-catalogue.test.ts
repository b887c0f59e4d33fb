import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_FOR_KIND } from '../../src/commands/output/exit-codes.js';
import { E, type CatalogueEntry } from '../../src/core/error-catalogue.js';
import { StorError } from '../../src/core/errors.js';

const entries: CatalogueEntry[] = Object.values(E);

/** The rows of docs/ERRORS.md's "## Error codes" table, as [code, exit code, meaning, what to do]. */
function readmeErrorRows(): string[][] {
  const readme = readFileSync(new URL('../../docs/ERRORS.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Error codes\n');
  expect(start, 'docs/ERRORS.md has an "## Error codes" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('the error catalogue (src/core/error-catalogue.ts)', () => {
  it('gives every code a kind with an exit code, a meaning and a remedy, in texts a table cell can hold', () => {
    expect(entries.length).toBeGreaterThan(50);
    for (const entry of entries) {
      expect(entry.code, entry.code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
      expect(EXIT_FOR_KIND[entry.kind], `${entry.code}: kind ${entry.kind}`).toEqual(expect.any(Number));
      for (const text of [entry.meaning, entry.remedy]) {
        expect(text.trim().length, `${entry.code}: empty text`).toBeGreaterThan(10);
        expect(text, `${entry.code}: a | would split the table cell`).not.toContain('|');
        expect(text, `${entry.code}: one line`).not.toContain('\n');
      }
    }
  });

  it('names each entry by its own code, so E.X raises X', () => {
    for (const [name, entry] of Object.entries(E)) expect(entry.code).toBe(name);
    const err = new StorError(E.BAD_MODE, '--mode 644 in decimal is more than 511', { hint: 'write --mode 0644' });
    expect({ code: err.code, kind: err.kind, message: err.message, hint: err.hint }).toEqual({
      code: 'BAD_MODE',
      kind: 'usage',
      message: '--mode 644 in decimal is more than 511',
      hint: 'write --mode 0644',
    });
  });

  it('keeps the codes scripts and the CLI rely on, with their kinds', () => {
    expect(E.INTERNAL.kind).toBe('internal');
    expect(EXIT_FOR_KIND[E.INTERNAL.kind]).toBe(1);
    expect(EXIT_FOR_KIND[E.INTERRUPTED.kind]).toBe(130);
    expect(EXIT_FOR_KIND[E.USAGE.kind]).toBe(2);
    for (const code of ['TIMEOUT', 'JOB_STALLED', 'RATE_LIMITED', 'MALFORMED_ANSWER'] as const)
      expect(EXIT_FOR_KIND[E[code].kind], code).toBe(3);
    expect(EXIT_FOR_KIND[E.UPLOAD_FORBIDDEN.kind]).toBe(5);
  });

  it("is what docs/ERRORS.md's error-code table lists: every code once, its exit code, meaning and remedy", () => {
    const rows = readmeErrorRows();
    const expected = entries.map((e) => [`\`${e.code}\``, String(EXIT_FOR_KIND[e.kind]), e.meaning, e.remedy]);
    // One row per line of the diff when they drift: the catalogue is the source, docs/ERRORS.md the copy.
    expect(rows.map((r) => r.join(' | '))).toEqual(expected.map((r) => r.join(' | ')));
  });
});
