// Prints the closing line CI reads: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

// With `--counts-only` (after a failed step) it prints only the counts.
const [file, seconds] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
if (seconds !== '--counts-only') {
  console.log(
    `\nCI finished in ${seconds}s: lint, typecheck, build, pack check and MCP conformance passed.`,
  );
}
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
);
if (report.numFailedTests > 0 || report.numPassedTests === 0) process.exit(1);
