import { formatProblem, type PluginProblem } from '@gateway/sdk';
import { CliError } from '../../cli-error.js';
import { createColors, isColorEnabled } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { withSpinner } from '../../output/spinner.js';
import { printJson } from '../../output/table.js';
import { type ProcessRunner, runProcess } from '../../process/run-process.js';
import { findPackageBin } from '../../project/find-bin.js';
import { isRecord, readPackageJson } from '../../project/read-package-json.js';
import { findPluginEntry } from './find-entry.js';
import { type LoadedPlugin, loadPlugin } from './load-plugin.js';
import { declaredProviders, mountProblems } from './mount-problems.js';
import {
  scanTokenCalls,
  type UndeclaredTokenCall,
  undeclaredTokenCalls,
} from './scan-token-calls.js';

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

/**
 * A problem `gateway test` found: a problem of the plugin definition (with its plugin, tool and
 * field); a `getToken('<provider>')` call in the source naming a provider the plugin does not
 * declare (with its file and line); or, when the definition could not be checked or the tests
 * could not run, only a message saying why and what to do.
 */
export type TestProblem = PluginProblem | UndeclaredTokenCall | { message: string };

/** What `gateway test` found; the document `--json` prints. */
export interface TestReport {
  /** Whether everything passed: a valid definition and passing tests (or `--no-tests`). */
  ok: boolean;
  /** The plugin id, or null when there is none (no plugin found, or a definition without one). */
  plugin: string | null;
  /** Tool paths of the plugin. */
  tools: string[];
  /**
   * Every problem at once: each of the definition, the namespace or a schema with its plugin,
   * tool and field, and each `getToken()` call for an undeclared provider with its file and line.
   */
  problems: TestProblem[];
  /** The project's tests; null when they did not run (invalid plugin, `--no-tests`, no runner). */
  tests: { passed: boolean } | null;
}

/**
 * `gateway test`: loads the plugin and runs every check the gateway applies to it, reporting
 * every problem of every tool in one run: its definition (tool and field), the namespace
 * `gateway dev` and `gateway register` mount it under, the JSON Schema of each input and output
 * schema (with the server's own conversion), and each `getToken('<provider>')` call its source
 * makes for a provider it does not declare (file and line; a scan of string literals, so
 * best-effort). Then it runs the project's tests with its own vitest (or `npm test`). With
 * `--json` the report is printed whatever happens, failures included, with `ok` saying whether
 * all passed.
 *
 * @returns the report, when the plugin is valid and the tests pass.
 * @throws CliError (exit 1) after printing the report, when no plugin is found or it cannot be
 *   loaded, it has any problem, nothing can run the tests, or the tests fail.
 * @example
 * const report = await runTest({ cwd: 'weather', io, json: true });
 */
export async function runTest(options: TestOptions): Promise<TestReport> {
  const { cwd, io, json = false } = options;
  const c = createColors(io);
  const report: TestReport = { ok: false, plugin: null, tools: [], problems: [], tests: null };
  // Every failure ends here: the JSON report (with --json), then the one-line error.
  const fail = (error: CliError): never => {
    if (json) printJson(io, report);
    throw error;
  };

  let entry: string;
  let loaded: LoadedPlugin;
  try {
    entry = await findPluginEntry(cwd);
    loaded = await withSpinner(io, `Loading ${entry}`, () => loadPlugin(cwd, entry));
  } catch (error) {
    if (!CliError.isInstance(error)) throw error;
    report.problems.push({ message: error.message });
    return fail(error);
  }
  report.plugin = loaded.id ?? null;
  report.tools = loaded.tools;
  const name = loaded.id ?? entry;
  // Everything the server refuses, checked together on whatever part of the definition is sound,
  // so one run reports every problem of every tool: the definition (what the gateway's catalog
  // validates), the namespace `gateway dev` and `gateway register` mount it under and the JSON
  // Schema of every input and output (what mounting checks), then the providers the source asks
  // for (what the gateway refuses when the tool runs; a best-effort scan).
  const { definition } = loaded;
  report.problems = [
    ...loaded.problems,
    ...mountProblems(definition, loaded.problems),
    ...undeclaredTokenCalls(
      await scanTokenCalls(cwd, entry),
      loaded.id ?? '<unnamed>',
      declaredProviders(definition),
    ),
  ];

  if (!json) {
    if (report.problems.length === 0) {
      io.stdout.write(
        `${c.green('✓')} plugin ${name}: ${plural(report.tools.length, 'tool')} valid\n`,
      );
    } else {
      io.stdout.write(
        `${c.red('✗')} plugin ${name}: ${plural(report.problems.length, 'problem')}\n`,
      );
      for (const problem of report.problems) io.stdout.write(`  - ${describe(problem)}\n`);
    }
  }
  if (report.problems.length > 0) {
    return fail(
      new CliError(
        `Plugin ${name} has ${plural(report.problems.length, 'problem')}; fix them and run \`gateway test\` again`,
      ),
    );
  }

  if (options.runTests !== false) {
    report.tests = await runProjectTests(options);
    if (report.tests === null) {
      // A check that passes without running anything would hide a broken install in CI.
      const message =
        'No tests ran: vitest is not installed and package.json has no test script; run `npm install`, or pass --no-tests to only check the definition';
      report.problems.push({ message });
      return fail(new CliError(message));
    }
    if (!report.tests.passed) {
      return fail(new CliError('Tests failed; fix them and run `gateway test` again'));
    }
  }
  report.ok = true;
  if (json) printJson(io, report);
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
  return null;
}

async function hasTestScript(cwd: string): Promise<boolean> {
  const scripts = (await readPackageJson(cwd))?.scripts;
  return isRecord(scripts) && typeof scripts.test === 'string';
}

function describe(problem: TestProblem): string {
  return 'field' in problem ? formatProblem(problem) : problem.message;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
