import type { Readable, Writable } from 'node:stream';

/** Anything a command can write text to: a process stream, or a collector in tests. */
export interface OutputStream {
  write(text: string): unknown;
}

/**
 * Where a command reads and writes. Commands take it as an option instead of touching `process`,
 * so tests run them in-process and read what they printed.
 */
export interface Io {
  /** Data and results; with `--json`, nothing but the JSON document. */
  stdout: OutputStream;
  /** Progress, warnings and errors. */
  stderr: OutputStream;
  /** Whether a person is at a terminal: prompts, spinners and colour happen only then. */
  isTTY: boolean;
  /** Environment variables, read when used. */
  env: Readonly<Record<string, string | undefined>>;
  /** The terminal that prompts draw on; absent when nobody is there to answer them. */
  terminal?: { input: Readable; output: Writable };
  /**
   * Where spinners draw: stderr when it is a terminal, so a spinner never mixes with what stdout
   * carries (a `--json` document piped elsewhere); absent when nobody would see it.
   */
  spinnerOutput?: Writable;
  /** How long a wait lasts before its spinner shows. Default 1000 ms; tests set 0. */
  spinnerDelayMs?: number;
}

/**
 * The Io of the running process.
 *
 * @example
 * const code = await main(process.argv.slice(2), createProcessIo(), process.cwd());
 */
export function createProcessIo(): Io {
  const isTTY = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY,
    env: process.env,
    ...(isTTY ? { terminal: { input: process.stdin, output: process.stdout } } : {}),
    ...(process.stderr.isTTY ? { spinnerOutput: process.stderr } : {}),
  };
}
