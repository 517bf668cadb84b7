/**
 * CLI startup benchmark: wall time of `gateway --help` and `gateway --version`, each as a ratio to
 * `node -e 0` measured in the same round, so machine load and Node's own start-up cancel out.
 * Target: the median ratio is at most 1.3 for both.
 *
 * Run from the repository root after building the CLI:
 *   pnpm --filter @gateway/cli build && node bench/cli-startup/index.mjs [--runs 30]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TARGET_RATIO = 1.3;
const WARMUP_RUNS = 3;
// The bin as installed: the Node version check, then dist/bin.js.
const bin = fileURLToPath(new URL('../../packages/cli/bin/gateway.cjs', import.meta.url));
const built = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

function parseRuns(argv) {
  const index = argv.indexOf('--runs');
  if (index === -1) return 30;
  const runs = Number(argv[index + 1]);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error('error: --runs takes a whole number of runs, e.g. --runs 30');
    process.exit(2);
  }
  return runs;
}

/** Runs node with `args` to completion and returns the wall time in milliseconds. */
function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim();
    console.error(`error: node ${args.join(' ')} exited ${result.status}: ${output}`);
    process.exit(1);
  }
  return ms;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function main() {
  if (!existsSync(built)) {
    console.error(
      'error: packages/cli/dist/bin.js is missing; run `pnpm --filter @gateway/cli build` first',
    );
    process.exitCode = 1;
    return;
  }
  const runs = parseRuns(process.argv.slice(2));
  const cases = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'gateway --help', args: [bin, '--help'] },
    { name: 'gateway --version', args: [bin, '--version'] },
  ];
  console.log(`cli startup: ${runs} interleaved runs each, Node ${process.version}\n`);

  // Warm the disk cache (and Node's compile cache, when the CLI enables it) as a user's second run would.
  for (let i = 0; i < WARMUP_RUNS; i++) for (const { args } of cases) time(args);

  const samples = cases.map(() => []);
  const ratios = cases.map(() => []);
  for (let round = 0; round < runs; round++) {
    // Rotating the order keeps a slow first or last spawn from favouring one case.
    const order = cases.map((_, index) => (index + round) % cases.length);
    const roundMs = [];
    for (const index of order) roundMs[index] = time(cases[index].args);
    for (const [index, ms] of roundMs.entries()) {
      samples[index].push(ms);
      ratios[index].push(ms / roundMs[0]);
    }
  }

  const rows = cases.map(({ name }, index) => [
    name,
    median(samples[index]).toFixed(1),
    Math.min(...samples[index]).toFixed(1),
    median(ratios[index]).toFixed(2),
  ]);
  const header = ['command', 'median ms', 'min ms', 'median ratio'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));

  const worst = Math.max(median(ratios[1]), median(ratios[2]));
  console.log(
    `\ntarget "median ratio to node -e 0 <= ${TARGET_RATIO} for --help and --version": ` +
      `${worst <= TARGET_RATIO ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)})`,
  );
}

main();
