import { type Command, InvalidArgumentError } from 'commander';

/** The `Examples:` section at the end of a command's help: one `$ <line>` per example. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** `--port <port>`: a whole number from 0 to 65535, else a usage error. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('Expected a port number from 0 to 65535');
  }
  return port;
}

/** Whether the option came from the command line rather than its default. */
export function fromCommandLine(command: Command, option: string): boolean {
  return command.getOptionValueSource(option) === 'cli';
}

const URL_HELP = 'the gateway (default: env GATEWAY_URL, else the last login)';

/** `--url <url>` and, when the command prints data, `--json`. */
export function signedInFlags(command: Command, json = true): Command {
  command.option('--url <url>', URL_HELP);
  if (json) command.option('--json', 'print JSON on stdout');
  return command;
}

/** The flags `signedInFlags()` declares, as an action receives them. */
export interface UrlFlags {
  url?: string;
  json?: boolean;
}
