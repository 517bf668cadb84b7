const marker = Symbol.for('gateway.cli.CliError');

/**
 * The CLI's fixed exit codes, as `gh` uses them: scripts may branch on them.
 * 1 a failure, 2 a usage error or a cancelled prompt, 4 not signed in or forbidden.
 */
export type ExitCode = 1 | 2 | 4;

/** Options of `new CliError()`. */
export interface CliErrorOptions {
  /** Default 1. */
  exitCode?: ExitCode;
  cause?: unknown;
}

/**
 * An error meant for the person at the terminal: the entry point prints its message as one line,
 * `error: <message>`, with no stack, and exits with `exitCode`. Say what went wrong and what to do
 * next. Anything else a command throws is treated as a bug and printed with its stack.
 *
 * @example
 * throw new CliError('Folder weather is not empty; choose another name or --dir', { exitCode: 1 });
 */
export class CliError extends Error {
  readonly [marker] = true;
  readonly exitCode: ExitCode;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
  }

  /**
   * Whether `error` is a CliError. A marker rather than `instanceof`, because the programmatic
   * entry and a lazily loaded command chunk may each hold a copy of this class.
   */
  static isInstance(error: unknown): error is CliError {
    return (
      typeof error === 'object' &&
      error !== null &&
      marker in error &&
      (error as Record<symbol, unknown>)[marker] === true
    );
  }
}
