import { PassThrough } from 'node:stream';
import type { Io } from '../../src/output/io.js';

/** An Io for tests, with what the command printed. */
export interface TestIo extends Io {
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
  /** Everything drawn on the fake terminal so far (prompts). */
  drawn(): string;
  /** Everything spinners drew on the fake stderr terminal so far. */
  spun(): string;
}

/**
 * Creates an Io that records output. Not a terminal unless `isTTY` is set; stderr is a terminal
 * (spinners draw) when `stderrTTY` is set, else as `isTTY`. The environment is the process's
 * (child processes need PATH), with `NO_COLOR` set so assertions read plain text.
 */
export function createTestIo(
  options: {
    isTTY?: boolean;
    stderrTTY?: boolean;
    /** Spinners show after this many ms (default: as in real use, 1000). */
    spinnerDelayMs?: number;
    env?: Record<string, string | undefined>;
  } = {},
): TestIo {
  let out = '';
  let err = '';
  let drawn = '';
  let spun = '';
  const output = new PassThrough();
  output.on('data', (chunk: Buffer) => {
    drawn += chunk.toString();
  });
  const spinnerOutput = new PassThrough();
  spinnerOutput.on('data', (chunk: Buffer) => {
    spun += chunk.toString();
  });
  const isTTY = options.isTTY ?? false;
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    isTTY,
    env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: '1', ...options.env },
    ...(isTTY ? { terminal: { input: new PassThrough(), output } } : {}),
    ...((options.stderrTTY ?? isTTY) ? { spinnerOutput } : {}),
    ...(options.spinnerDelayMs === undefined ? {} : { spinnerDelayMs: options.spinnerDelayMs }),
    out: () => out,
    err: () => err,
    drawn: () => drawn,
    spun: () => spun,
  };
}
