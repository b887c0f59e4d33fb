import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The word "issue" or "issues", then a number (with or without "#"): a tracker no reader of the repository can open. */
const ISSUE_NUMBER = new RegExp(['[Ii]ssues?', ' ?#?[0-9]+'].join(''));

/** Every line of a source or test file that names an issue by its number, as `path:line: text`. */
function issueNumbersIn(dir: string): string[] {
  const found: string[] = [];
  for (const rel of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
    if (!/\.(?:ts|mts|js|mjs|cjs|py|sh)$/.test(rel)) continue;
    const path = join(ROOT, dir, rel);
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (ISSUE_NUMBER.test(line)) found.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

/**
 * Comments say why, citing the middleware source (`MW/…:line`) or the repository's own docs
 * (docs/ARCHITECTURE.md); an issue number tells a reader nothing they can look up.
 */
describe('no comment or test names an issue number', () => {
  it('src/ names none', () => {
    expect(issueNumbersIn('src')).toEqual([]);
  });

  it('test/ names none', () => {
    expect(issueNumbersIn('test')).toEqual([]);
  });

  it('the check finds one: a line naming an issue by number is caught', () => {
    expect(ISSUE_NUMBER.test(`// the walk of ${'issue'} 14`)).toBe(true);
    expect(ISSUE_NUMBER.test('// tomaae/homeassistant-truenas#201')).toBe(false);
  });
});
