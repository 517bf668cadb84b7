import type { Io } from './io.js';

/** Styles text for the terminal; each function returns its input unchanged when colour is off. */
export interface Colors {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Whether to colour output: never with `NO_COLOR` set (https://no-color.org) or `TERM=dumb`,
 * always with `FORCE_COLOR` set to anything but `0`, otherwise only at a terminal.
 */
export function isColorEnabled(io: Io): boolean {
  const { NO_COLOR, FORCE_COLOR, TERM } = io.env;
  if (NO_COLOR) return false;
  if (FORCE_COLOR !== undefined && FORCE_COLOR !== '') return FORCE_COLOR !== '0';
  if (TERM === 'dumb') return false;
  return io.isTTY;
}

const style =
  (open: number, close: number, enabled: boolean) =>
  (text: string): string =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/**
 * The colours for `io`, honouring `NO_COLOR`.
 *
 * @example
 * const c = createColors(io);
 * io.stdout.write(`${c.green('✓')} done\n`);
 */
export function createColors(io: Io): Colors {
  const on = isColorEnabled(io);
  return {
    bold: style(1, 22, on),
    dim: style(2, 22, on),
    red: style(31, 39, on),
    green: style(32, 39, on),
    yellow: style(33, 39, on),
    cyan: style(36, 39, on),
  };
}
