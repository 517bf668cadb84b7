import { Command, type OutputConfiguration } from 'commander';
import type { Keychain } from './credentials/keychain.js';
import {
  declareAccountCommands,
  declareAdminCommands,
  declareAuthorCommands,
  declareToolUseCommands,
  examples,
} from './declarations/index.js';
import { createColors, isColorEnabled } from './output/color.js';
import type { Io } from './output/io.js';
import { oneLine } from './report-error.js';
import { version } from './version.js';

/** What every command runs against. */
export interface ProgramContext {
  io: Io;
  /** The folder the command runs in. */
  cwd: string;
  /**
   * The OS keychain the sign-in commands use; `null` for none (tests, so they never touch the
   * developer's own). Default: the real one.
   */
  keychain?: Keychain | null;
}

/** Commander's message as one line, without its `error:` prefix and final full stop. */
function usageMessage(text: string): string {
  return oneLine(text)
    .replace(/^error:\s*/, '')
    .replace(/\.$/, '');
}

/**
 * Declares every command, its flags and its help. Each action imports its implementation only when
 * it runs, so a command loads its own code and nothing of the others. (`gateway --help` and
 * `--version` do not even get here: bin.ts answers them, see quick-answer.ts.)
 *
 * The program throws instead of exiting (commander's `exitOverride`), and writes through `io`, so
 * tests can drive it in-process; `main()` turns what it throws into an exit code.
 *
 * @example
 * await createProgram({ io, cwd: process.cwd() }).parseAsync(['test', '--json'], { from: 'user' });
 */
export function createProgram({ io, cwd, keychain }: ProgramContext): Command {
  const c = createColors(io);
  const output: OutputConfiguration = {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    getOutHasColors: () => isColorEnabled(io),
    getErrHasColors: () => isColorEnabled(io),
  };

  const program = new Command('gateway')
    .description('Scaffold, test and run Gateway plugins; sign in and connect tools.')
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .exitOverride()
    .configureOutput(output)
    .addHelpText(
      'after',
      examples(
        'gateway new weather --template api-key',
        'gateway test --json',
        'gateway login',
        'gateway connect github',
        'gateway new --help',
      ),
    );

  // Declared in the order `gateway --help` lists them: hence approvals and tools after the admins'.
  declareAuthorCommands(program, { io, cwd });
  // The commands of people using a gateway: sign-in, connecting tools, and the resources of the
  // signed-in user (and of admins). Each acts through the gateway's HTTP API only.
  const account = keychain === undefined ? { io } : { io, keychain };
  declareAccountCommands(program, account);
  declareAdminCommands(program, account);
  declareToolUseCommands(program, account);

  // Usage errors name the command's help, so the one line says what to do next.
  const configure = (command: Command, path: string) => {
    command.configureOutput({
      ...output,
      outputError: (text, write) =>
        write(`${c.red('error:')} ${usageMessage(text)}; see \`${path} --help\`\n`),
    });
    for (const sub of command.commands) configure(sub, `${path} ${sub.name()}`);
  };
  configure(program, 'gateway');
  return program;
}
