// Reads a vitest JSON report (--reporter=json --outputFile.json=FILE).
//   node scripts/vitest-counts.mjs FILE             "N passed, M failed", or "no report" when the
//                                                   run ended before writing one
//   node scripts/vitest-counts.mjs --failures FILE [EXIT]
//                                                   each failed test: its file, its name and the
//                                                   first lines of its error, so that the end of
//                                                   CI's output (often all that is kept) names it;
//                                                   given the run's exit code, a line saying so
//                                                   when it failed with no failed test reported
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const failures = process.argv[2] === '--failures';
const file = process.argv[failures ? 3 : 2];
const exit = Number(process.argv[4] ?? 0);
// An unhandled error fails the run (vitest exits 1) but is in no test's result, and the JSON report
// says `success: true` beside it; nor is there a report when the install, the checks or vitest stop.
const unexplained = () => {
  if (exit !== 0)
    console.log(
      `FAIL: the run exited ${exit} with no failed test in its report: an unhandled error (vitest's "Unhandled Errors"), or no run (install, checks); its output above says which`,
    );
};
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  if (!failures) console.log('no report');
  else unexplained();
  process.exit(0);
}
if (!failures) {
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  process.exit(0);
}
let named = 0;
for (const suite of report.testResults ?? []) {
  const where = relative(process.cwd(), suite.name);
  const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
  // A file that failed to load, or an error outside any test, has no failed test of its own.
  if (failed.length === 0 && suite.status === 'failed') {
    console.log(`FAIL ${where}: ${firstLines(suite.message)}`);
    named++;
  }
  for (const test of failed) {
    named++;
    console.log(`FAIL ${where} > ${test.fullName}`);
    for (const message of test.failureMessages ?? []) console.log(`  ${firstLines(message)}`);
  }
}

if (named === 0) unexplained();

function firstLines(text) {
  return String(text ?? '')
    .split('\n')
    .slice(0, 6)
    .join('\n  ');
}
