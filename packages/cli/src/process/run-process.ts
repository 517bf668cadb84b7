import { spawn } from 'node:child_process';
import { CliError } from '../cli-error.js';

/** Options of a `ProcessRunner` call. */
export interface RunProcessOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Receives the child's output as it comes; omitted output is discarded. */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
}

/** Runs a program to completion and resolves to its exit code. Swappable in tests. */
export type ProcessRunner = (
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
) => Promise<{ exitCode: number }>;

/**
 * The real `ProcessRunner`, on `child_process.spawn`. The child gets no stdin, so a tool that
 * would wait for input fails instead of hanging a CI job.
 *
 * @throws CliError when the program cannot be started (not installed, not on PATH).
 */
export const runProcess: ProcessRunner = (command, args, options) =>
  new Promise((resolve, reject) => {
    // npm is a .cmd script on Windows, which only a shell can start; node itself needs none.
    const shell = process.platform === 'win32' && command !== process.execPath;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell,
    });
    child.stdout.setEncoding('utf8').on('data', (text: string) => options.onStdout?.(text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => options.onStderr?.(text));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new CliError(`Could not run ${command}: it is not installed or not on PATH`, {
              cause: error,
            })
          : error,
      );
    });
    child.on('close', (code, signal) => resolve({ exitCode: code ?? (signal ? 1 : 0) }));
  });
