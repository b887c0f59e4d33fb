import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Outside a git checkout (an unpacked tarball) there is nothing to check.
const inCheckout = (() => {
  try {
    return (
      execFileSync('git', ['rev-parse', '--is-inside-work-tree'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() === 'true'
    );
  } catch {
    return false;
  }
})();

describe('.gitignore', () => {
  it.skipIf(!inCheckout)('names no tracked file (git ls-files -ci --exclude-standard is empty)', () => {
    expect(execFileSync('git', ['ls-files', '-ci', '--exclude-standard'], { encoding: 'utf8' })).toBe('');
  });
});
