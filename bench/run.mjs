/**
 * Runs the benchmarks: `pnpm bench` runs them all, `pnpm bench policy mcp` the ones named.
 * Each prints its own figures beside a baseline measured in the same run (see its README).
 * Arguments after `--` go to every benchmark run, e.g. `pnpm bench cli-startup -- --runs 100`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every benchmark: how to run it, what it always builds first (`build`), or what it builds when
 * missing (`needs`).
 */
const benchmarks = {
  policy: { command: ['pnpm', 'exec', 'tsx', 'bench/policy/index.ts'] },
  executions: { command: ['pnpm', 'exec', 'tsx', 'bench/executions/index.ts'] },
  'web-pages': { command: ['pnpm', 'exec', 'tsx', 'bench/web-pages/index.ts'] },
  mcp: {
    command: ['pnpm', 'exec', 'tsx', 'bench/mcp/index.ts'],
    // The Gateway is measured as released: built, always afresh, so the figures are this code's.
    build: ['pnpm', '--filter', '@gateway/sdk', '--filter', '@gateway/server', 'build'],
  },
  scale: {
    command: ['pnpm', 'exec', 'tsx', 'bench/scale/index.ts'],
    // The Gateway as released, as gateway-server runs it.
    build: ['pnpm', '--filter', '@gateway/sdk', '--filter', '@gateway/server', 'build'],
  },
  toolsets: {
    command: [process.execPath, 'bench/toolsets/index.mjs'],
    build: ['pnpm', '--filter', '@gateway/sdk', '--filter', '@gateway/server', 'build'],
  },
  startup: {
    command: [process.execPath, 'bench/startup/index.mjs'],
    build: ['pnpm', '--filter', '@gateway/sdk', '--filter', '@gateway/server', 'build'],
  },
  'cli-startup': {
    command: [process.execPath, 'bench/cli-startup/index.mjs'],
    needs: {
      file: 'packages/cli/dist/bin.js',
      build: ['pnpm', '--filter', '@gateway/cli', 'build'],
    },
  },
};

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const names = dashes === -1 ? argv : argv.slice(0, dashes);
const extra = dashes === -1 ? [] : argv.slice(dashes + 1);

const unknown = names.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(
    `error: no benchmark named ${unknown.join(', ')}; choose from ${Object.keys(benchmarks).join(', ')}`,
  );
  process.exit(2);
}

/** Runs a command from the repository root, its output going straight to ours. */
function run([command, ...args]) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const failed = [];
for (const name of names.length > 0 ? names : Object.keys(benchmarks)) {
  const { command, build, needs } = benchmarks[name];
  console.log(`\n==> bench ${name}`);
  const built = build
    ? run(build) === 0
    : !needs || existsSync(`${root}/${needs.file}`) || run(needs.build) === 0;
  if (!built) {
    failed.push(name);
    continue;
  }
  if (run([...command, ...extra]) !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nbenchmarks that failed: ${failed.join(', ')}`);
  process.exit(1);
}
