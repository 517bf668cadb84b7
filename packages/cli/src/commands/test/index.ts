import { formatProblem, type PluginProblem } from '@gateway/sdk';
import { CliError } from '../../cli-error.js';
import { createColors, isColorEnabled } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { withSpinner } from '../../output/spinner.js';
import { type ProcessRunner, runProcess } from '../../process/run-process.js';
import { findPackageBin } from '../../project/find-bin.js';
import { isRecord, readPackageJson } from '../../project/read-package-json.js';
import { findPluginEntry } from './find-entry.js';
import { loadPlugin } from './load-plugin.js';

/** Options of `runTest()`. */
export interface TestOptions {
  /** The plugin project. */
  cwd: string;
  io: Io;
  /** Print the report as JSON on stdout; the test runner's output then goes to stderr. */
  json?: boolean;
  /** Run the project's tests after validating. Default true. */
  runTests?: boolean;
  /** Runs the test runner. Default: a child process. */
  runProcess?: ProcessRunner;
}

/** What `gateway test` found; the document `--json` prints. */
export interface TestReport {
  /** The plugin id, or null when the definition has none. */
  plugin: string | null;
  /** Tool paths of the plugin. */
  tools: string[];
  /** Every problem of the definition, each naming its plugin, tool and field. */
  problems: PluginProblem[];
  /** The project's tests; null when they did not run (invalid plugin, `--no-tests`, no runner). */
  tests: { passed: boolean } | null;
}

/**
 * `gateway test`: loads the plugin, reports every problem of its definition at once (tool and
 * field), then runs the project's tests with its own vitest (or `npm test`).
 *
 * @returns the report, when the plugin is valid and the tests pass.
 * @throws CliError (exit 1) after printing the report, when the definition has problems or the
 *   tests fail; also when no plugin is found or it cannot be loaded.
 * @example
 * const report = await runTest({ cwd: 'weather', io, json: true });
 */
export async function runTest(options: TestOptions): Promise<TestReport> {
  const { cwd, io, json = false } = options;
  const c = createColors(io);
  const entry = await findPluginEntry(cwd);
  const loaded = await withSpinner(io, `Loading ${entry}`, () => loadPlugin(cwd, entry));
  const report: TestReport = {
    plugin: loaded.id ?? null,
    tools: loaded.tools,
    problems: loaded.problems,
    tests: null,
  };
  const name = loaded.id ?? entry;

  if (!json) {
    if (report.problems.length === 0) {
      io.stdout.write(
        `${c.green('✓')} plugin ${name}: ${plural(report.tools.length, 'tool')} valid\n`,
      );
    } else {
      io.stdout.write(
        `${c.red('✗')} plugin ${name}: ${plural(report.problems.length, 'problem')}\n`,
      );
      for (const problem of report.problems) io.stdout.write(`  - ${formatProblem(problem)}\n`);
    }
  }

  if (report.problems.length === 0 && options.runTests !== false) {
    report.tests = await runProjectTests(options);
  }
  if (json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);

  if (report.problems.length > 0) {
    throw new CliError(
      `Plugin ${name} has ${plural(report.problems.length, 'problem')}; fix them and run \`gateway test\` again`,
    );
  }
  if (report.tests?.passed === false) {
    throw new CliError('Tests failed; fix them and run `gateway test` again');
  }
  return report;
}

async function runProjectTests(options: TestOptions): Promise<{ passed: boolean } | null> {
  const { cwd, io, json = false } = options;
  const run = options.runProcess ?? runProcess;
  const c = createColors(io);
  // With --json, stdout carries only the report.
  const out = json ? io.stderr : io.stdout;
  const env = { ...io.env, ...(isColorEnabled(io) && !json ? { FORCE_COLOR: '1' } : {}) };
  const forward = {
    onStdout: (text: string) => out.write(text),
    onStderr: (text: string) => io.stderr.write(text),
  };

  const vitest = await findPackageBin(cwd, 'vitest');
  if (vitest !== undefined) {
    out.write(c.dim('\nvitest run\n'));
    const { exitCode } = await run(process.execPath, [vitest, 'run'], { cwd, env, ...forward });
    return { passed: exitCode === 0 };
  }
  if (await hasTestScript(cwd)) {
    out.write(c.dim('\nnpm test\n'));
    const { exitCode } = await run('npm', ['test'], { cwd, env, ...forward });
    return { passed: exitCode === 0 };
  }
  io.stderr.write(
    `${c.yellow('warning:')} no tests ran: vitest is not installed and package.json has no test script\n`,
  );
  return null;
}

async function hasTestScript(cwd: string): Promise<boolean> {
  const scripts = (await readPackageJson(cwd))?.scripts;
  return isRecord(scripts) && typeof scripts.test === 'string';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
