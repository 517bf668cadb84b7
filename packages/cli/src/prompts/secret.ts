import { CliError } from '../cli-error.js';
import type { Io } from '../output/io.js';

/** Asks for a secret without showing it; resolves the answer. */
export type SecretPrompt = (message: string) => Promise<string>;

/**
 * A SecretPrompt on @clack/prompts' password prompt, which echoes a mask character per key
 * press, never the key. Ctrl+C rejects with a CliError (exit 2).
 *
 * @returns undefined when nobody is at a terminal.
 */
export async function createSecretPrompt(io: Io): Promise<SecretPrompt | undefined> {
  const terminal = io.isTTY ? io.terminal : undefined;
  if (terminal === undefined) return undefined;
  const clack = await import('@clack/prompts');
  return async (message) => {
    const value = await clack.password({
      input: terminal.input,
      output: terminal.output,
      message,
      validate: (answer) => (answer?.trim() ? undefined : 'Paste the key, or press Ctrl+C to stop'),
    });
    if (clack.isCancel(value)) throw new CliError('Cancelled', { exitCode: 2 });
    return value;
  };
}

/**
 * Everything on `input` (a pipe), without the line break a shell adds, for `--secret-stdin`.
 *
 * @throws CliError (exit 2) when it is empty or longer than `maxLength`.
 */
export async function readSecretFrom(
  input: NodeJS.ReadableStream,
  maxLength: number,
): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.length > maxLength * 2) break;
  }
  const secret = text.replace(/\r?\n$/, '').trim();
  if (secret === '') {
    throw new CliError(
      '--secret-stdin read nothing; pipe the key in, e.g. `printenv WEATHER_KEY | gateway connect weather --secret-stdin`',
      { exitCode: 2 },
    );
  }
  if (secret.length > maxLength) {
    throw new CliError(`The key on stdin is longer than ${maxLength} characters`, { exitCode: 2 });
  }
  return secret;
}
