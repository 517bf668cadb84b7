import { version } from './version.js';

/**
 * `gateway --help` as commander prints it at 80 columns, rendered at build time (tsup `define`,
 * see tsup.config.ts). Undefined when running from source.
 */
declare const __GATEWAY_HELP__: string | undefined;

/** The width the help is rendered at; commander wraps nothing narrower than this differently. */
export const HELP_COLUMNS = 80;

const builtHelp = typeof __GATEWAY_HELP__ === 'string' ? __GATEWAY_HELP__ : undefined;

/**
 * The output of `gateway --version` and `gateway --help`, when it can be given without loading
 * commander and the command declarations, which would double the start-up time of these two
 * commands (bench/cli-startup). Anything else returns undefined, for commander to handle.
 *
 * @param columns the terminal's width, or undefined when stdout is not a terminal: the build-time
 *   help is exact only where commander would also wrap at 80 columns or wider.
 * @example
 * quickAnswer(['--version'], undefined); // '0.1.0\n'
 */
export function quickAnswer(
  argv: readonly string[],
  columns: number | undefined,
  help: string | undefined = builtHelp,
): string | undefined {
  if (argv.length !== 1) return undefined;
  const [flag] = argv;
  if (flag === '--version' || flag === '-v') return `${version}\n`;
  if (flag === '--help' || flag === '-h') {
    const fits = columns === undefined || columns >= HELP_COLUMNS;
    return fits ? help : undefined;
  }
  return undefined;
}
