import { CliError } from '../../cli-error.js';
import { createColors, isColorEnabled } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { type ProcessRunner, runProcess } from '../../process/run-process.js';
import { findPackageBin } from '../../project/find-bin.js';

/** Options of `runBuild()`. */
export interface BuildOptions {
  /** The plugin project. */
  cwd: string;
  io: Io;
  /** Runs tsup. Default: a child process. */
  runProcess?: ProcessRunner;
}

/**
 * `gateway build`: builds the plugin with the project's own tsup and `tsup.config.ts`, so the
 * output matches `npm run build` and what CI publishes.
 *
 * @throws CliError (exit 1) when tsup is not installed or the build fails.
 * @example
 * await runBuild({ cwd: 'weather', io });
 */
export async function runBuild(options: BuildOptions): Promise<void> {
  const { cwd, io } = options;
  const c = createColors(io);
  const tsup = await findPackageBin(cwd, 'tsup');
  if (tsup === undefined) throw new CliError('tsup is not installed; run `npm install`');
  const run = options.runProcess ?? runProcess;
  const { exitCode } = await run(process.execPath, [tsup], {
    cwd,
    env: { ...io.env, ...(isColorEnabled(io) ? { FORCE_COLOR: '1' } : {}) },
    onStdout: (text) => io.stdout.write(text),
    onStderr: (text) => io.stderr.write(text),
  });
  if (exitCode !== 0)
    throw new CliError('Build failed; fix the errors above and run `gateway build` again');
  io.stdout.write(`${c.green('✓')} built ${c.bold('dist/')}\n`);
}
