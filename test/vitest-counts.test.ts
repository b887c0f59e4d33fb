import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp-dir.js';

// CI's failure listing (.ci/run, scripts/test-node-majors.sh) reads vitest's JSON report with this script.
const SCRIPT = fileURLToPath(new URL('../scripts/vitest-counts.mjs', import.meta.url));

const failures = (report: unknown, ...exit: string[]) => {
  const file = join(tempDir(), 'report.json');
  if (report !== undefined) writeFileSync(file, JSON.stringify(report));
  const r = spawnSync(process.execPath, [SCRIPT, '--failures', file, ...exit], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

// The report vitest 4 writes for a run whose one test passed (its JSON reporter's fields as read here).
const passed = {
  numPassedTests: 1,
  numFailedTests: 0,
  success: true,
  testResults: [
    {
      name: join(process.cwd(), 'c.test.ts'),
      status: 'passed',
      message: '',
      assertionResults: [{ fullName: 'c', status: 'passed', failureMessages: [] }],
    },
  ],
};

describe('scripts/vitest-counts.mjs --failures', () => {
  it('names a failed test, and a file that failed to load', () => {
    const report = {
      ...passed,
      testResults: [
        ...passed.testResults,
        {
          name: join(process.cwd(), 'a.test.ts'),
          status: 'failed',
          message: '',
          assertionResults: [{ fullName: 'a fails', status: 'failed', failureMessages: ['AssertionError: no'] }],
        },
        { name: join(process.cwd(), 'b.test.ts'), status: 'failed', message: 'cannot load', assertionResults: [] },
      ],
    };
    expect(failures(report, '1')).toBe('FAIL a.test.ts > a fails\n  AssertionError: no\nFAIL b.test.ts: cannot load\n');
  });

  it('says so when the run failed with no failed test in its report (an unhandled error), or with no report', () => {
    // vitest exits 1 on an unhandled error, which no test's result holds: its report says success.
    expect(failures(passed, '1')).toMatch(
      /^FAIL: the run exited 1 with no failed test in its report: an unhandled error/,
    );
    expect(failures(undefined, '1')).toMatch(/^FAIL: the run exited 1 with no failed test in its report/);
    expect(failures(passed, '0')).toBe('');
    expect(failures(passed)).toBe('');
  });
});
