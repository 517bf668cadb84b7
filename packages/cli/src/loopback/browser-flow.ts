import { createColors } from '../output/color.js';
import type { Io } from '../output/io.js';
import { withSpinner } from '../output/spinner.js';
import { type BrowserOpener, openSystemBrowser } from './browser.js';
import { type CallbackPage, listenForCallback } from './callback-listener.js';

/** How long a browser flow waits by default: five minutes, as the design says. */
export const BROWSER_FLOW_TIMEOUT_MS = 5 * 60_000;

/** Options of `runBrowserFlow()`. */
export interface BrowserFlowOptions<T> {
  io: Io;
  /** The page to open, given the loopback redirect URI. */
  pageUrl(redirectUri: string): string;
  /** What the user does there, e.g. "sign in to https://gw.example.com". */
  purpose: string;
  /** Checks the callback's query; see `listenForCallback`. */
  accept(query: URLSearchParams): T;
  success: CallbackPage;
  /** False: only print the URL (`--no-browser`). Default true. */
  browser?: boolean | undefined;
  /** Default: the system browser. */
  openBrowser?: BrowserOpener | undefined;
  /** Default {@link BROWSER_FLOW_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /** The CliError message when the browser never came back. */
  timeoutMessage(duration: string): string;
}

/** "5 minutes", "1 minute", "30 seconds". */
export function describeDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const minutes = ms / 60_000;
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * The browser half of `gateway login` and `gateway connect`: listens on the loopback, opens the
 * page in the browser and prints its URL too (for a browser elsewhere, or one that did not
 * open), then waits, with a spinner at a terminal, for the one callback.
 *
 * @throws CliError from `accept`, or when nothing came back within the timeout.
 */
export async function runBrowserFlow<T>(options: BrowserFlowOptions<T>): Promise<T> {
  const { io } = options;
  const c = createColors(io);
  const timeoutMs = options.timeoutMs ?? BROWSER_FLOW_TIMEOUT_MS;
  const listener = await listenForCallback({
    accept: options.accept,
    success: options.success,
    timeoutMs,
    timeoutMessage: options.timeoutMessage(describeDuration(timeoutMs)),
  });
  try {
    const url = options.pageUrl(listener.redirectUri);
    const port = new URL(listener.redirectUri).port;
    if (options.browser === false) {
      io.stderr.write(
        `Open this URL in a browser on this computer to ${options.purpose}:\n  ${c.cyan(url)}\n` +
          `${c.dim(`Over SSH, forward the port first: ssh -L ${port}:127.0.0.1:${port} <this host>`)}\n`,
      );
    } else {
      io.stderr.write(
        `Opening your browser to ${options.purpose}.\nIf it does not open, visit this URL on this computer:\n  ${c.cyan(url)}\n`,
      );
      const opener = options.openBrowser ?? openSystemBrowser;
      opener(url).catch((error: unknown) => {
        io.stderr.write(
          `${c.yellow('warning:')} could not open a browser (${error instanceof Error ? error.message : String(error)}); open the URL above yourself\n`,
        );
      });
    }
    return await withSpinner(io, 'Waiting for the browser', () => listener.result, {
      done: 'The browser answered',
    });
  } finally {
    await listener.close();
  }
}
