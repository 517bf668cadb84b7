import { CliError } from '../cli-error.js';
import type { Io } from '../output/io.js';

/** A choice of `Prompter.select()`. */
export interface Choice<T extends string> {
  value: T;
  label: string;
  hint?: string;
}

/**
 * Asks the person at the terminal. Commands take one as an option, so tests answer prompts
 * without a terminal; the real one is `createClackPrompter()`.
 */
export interface Prompter {
  text(options: {
    message: string;
    placeholder?: string;
    initialValue?: string;
    /** Returns why the value is not acceptable, or undefined to accept it. */
    validate?: (value: string) => string | undefined;
  }): Promise<string>;
  select<T extends string>(options: {
    message: string;
    choices: readonly Choice<T>[];
    initialValue?: T;
  }): Promise<T>;
  confirm(options: { message: string; initialValue?: boolean }): Promise<boolean>;
}

/**
 * A Prompter on @clack/prompts, drawing on `io.terminal`. Ctrl+C or Escape rejects with a
 * CliError (exit code 2), so the command stops and nothing is left half-asked.
 *
 * @returns undefined when nobody is at a terminal: callers must then take the flag's default or
 *   fail with a message naming the flag.
 */
export async function createClackPrompter(io: Io): Promise<Prompter | undefined> {
  const terminal = io.isTTY ? io.terminal : undefined;
  if (terminal === undefined) return undefined;
  const clack = await import('@clack/prompts');
  const streams = { input: terminal.input, output: terminal.output };
  const cancelled = () => new CliError('Cancelled', { exitCode: 2 });
  return {
    async text({ message, placeholder, initialValue, validate }) {
      const value = await clack.text({
        ...streams,
        message,
        placeholder,
        initialValue,
        validate: validate && ((value) => validate(value ?? '')),
      });
      if (clack.isCancel(value)) throw cancelled();
      return value;
    },
    async select({ message, choices, initialValue }) {
      const value = await clack.select<string>({
        ...streams,
        message,
        options: choices.map(({ value, label, hint }) => ({ value, label, hint })),
        initialValue,
      });
      if (clack.isCancel(value)) throw cancelled();
      // Maps the answer back to its choice, which carries the caller's literal type.
      const choice = choices.find((candidate) => candidate.value === value);
      if (choice === undefined) throw new Error(`select answered an unknown value: ${value}`);
      return choice.value;
    },
    async confirm({ message, initialValue }) {
      const value = await clack.confirm({ ...streams, message, initialValue });
      if (clack.isCancel(value)) throw cancelled();
      return value;
    },
  };
}
