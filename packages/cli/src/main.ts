import type { Io } from './output/io.js';
import { createProgram, type ProgramContext } from './program.js';
import { reportError } from './report-error.js';

/**
 * Runs the `gateway` command line in-process and resolves to the exit code: 0 on success, 1 on
 * failure, 2 on a usage error, 4 when not signed in or forbidden. Never exits the process.
 *
 * @param context the keychain (tests pass `null`); the OS keychain by default.
 * @example
 * const code = await main(['test', '--json'], io, '/path/to/plugin');
 */
export async function main(
  argv: readonly string[],
  io: Io,
  cwd: string,
  context: Pick<ProgramContext, 'keychain'> = {},
): Promise<number> {
  try {
    await createProgram({ io, cwd, ...context }).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    return reportError(error, io);
  }
}
