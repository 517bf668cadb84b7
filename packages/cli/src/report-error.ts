import { CliError } from './cli-error.js';
import { createColors } from './output/color.js';
import type { Io } from './output/io.js';

/** The shape of commander's errors, checked structurally so this module need not load commander. */
interface CommanderErrorLike {
  code: string;
  exitCode: number;
}

function isCommanderError(error: unknown): error is CommanderErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { code: string }).code.startsWith('commander.') &&
    typeof (error as { exitCode?: unknown }).exitCode === 'number'
  );
}

/**
 * Prints what a command threw and returns the process exit code: `error: <one line>` for a
 * CliError, the stack for anything else (a bug, to be reported), nothing more for commander's
 * usage errors, which commander has already printed.
 *
 * @returns 0 after `--help` or `--version`; 2 for usage errors; the CliError's code; else 1.
 */
export function reportError(error: unknown, io: Io): number {
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    return 2;
  }
  const c = createColors(io);
  if (CliError.isInstance(error)) {
    io.stderr.write(`${c.red('error:')} ${oneLine(error.message)}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(
    `${c.red('error:')} unexpected failure (a bug in gateway; please report it with this output)\n${detail}\n`,
  );
  return 1;
}

/** Joins a message's lines, so each error stays one line for people and for log scrapers. */
export function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}
