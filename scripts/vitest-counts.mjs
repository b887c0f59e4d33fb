// Prints "N passed, M failed" from a vitest JSON report (--reporter=json --outputFile.json=FILE), or
// "no report" when the run ended before writing one: `node scripts/vitest-counts.mjs FILE`.
import { readFileSync } from 'node:fs';

try {
  const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);
} catch {
  console.log('no report');
}
