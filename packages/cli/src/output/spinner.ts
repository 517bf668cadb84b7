import type { SpinnerResult } from '@clack/prompts';
import type { Io } from './io.js';

/** Options of `withSpinner()`. */
export interface SpinnerOptions {
  /** Shown when the task succeeds. Default: `message`. */
  done?: string;
  /** How long the task may run before the spinner appears. Default `io.spinnerDelayMs`, else 1000 ms. */
  delayMs?: number;
}

/**
 * Runs `task`, showing a spinner with `message` if it takes longer than a second and stderr is a
 * terminal. The spinner draws on stderr, so it never mixes with stdout (a `--json` document).
 * Quick tasks print nothing, so output stays quiet; in CI nothing is drawn.
 *
 * @example
 * await withSpinner(io, 'Installing dependencies', () => install(dir), { done: 'Installed' });
 */
export async function withSpinner<T>(
  io: Io,
  message: string,
  task: () => Promise<T>,
  options: SpinnerOptions = {},
): Promise<T> {
  const output = io.spinnerOutput;
  if (output === undefined) return task();
  let spinner: SpinnerResult | undefined;
  let stopped = false;
  const timer = setTimeout(
    async () => {
      try {
        // Loaded only when a wait is actually long, so quick commands never pay for it.
        const { spinner: createSpinner } = await import('@clack/prompts');
        if (stopped) return;
        spinner = createSpinner({ output, withGuide: false });
        spinner.start(message);
      } catch {
        // The spinner is decoration: one that cannot be drawn (its module does not load, the
        // terminal refuses raw mode) is left out and the task goes on; one half started is
        // stopped with the task, as usual. Nobody awaits this timer: a rejection here would end
        // the command in the middle of its task.
      }
    },
    options.delayMs ?? io.spinnerDelayMs ?? 1000,
  );
  try {
    const result = await task();
    spinner?.stop(options.done ?? message);
    return result;
  } catch (error) {
    spinner?.error(message);
    throw error;
  } finally {
    stopped = true;
    clearTimeout(timer);
  }
}
