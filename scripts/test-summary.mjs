// Prints the closing line CI reads: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const [file, seconds] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`\nCI finished in ${seconds}s: lint, typecheck, build and pack check passed.`);
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
);
if (report.numFailedTests > 0 || report.numPassedTests === 0) process.exit(1);
