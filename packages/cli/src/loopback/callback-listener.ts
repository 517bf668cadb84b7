import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '@gateway/sdk/kernel';
import { CliError } from '../cli-error.js';

/** What the browser is shown once the callback arrived. */
export interface CallbackPage {
  title: string;
  message: string;
}

/** The listener's answer: a page, and on success perhaps the gateway page to go on to. */
interface Answer extends CallbackPage {
  next?: string | undefined;
}

/** Options of `listenForCallback()`. */
export interface CallbackOptions<T> {
  /**
   * Checks the callback's query (state first) and returns what the flow continues with, or
   * throws a CliError saying what went wrong; the browser is told either way.
   */
  accept(query: URLSearchParams): T;
  /** Shown in the browser when `accept` returns. */
  success: CallbackPage;
  /** How long to wait for the callback. */
  timeoutMs: number;
  /** The CliError message when nothing arrived in time. */
  timeoutMessage: string;
}

/** A loopback listener waiting for its one callback. */
export interface CallbackListener<T> {
  /** `http://127.0.0.1:<port>/callback`, for the gateway to redirect the browser to. */
  redirectUri: string;
  /** What `accept` returned; rejects with its error, or on timeout. The listener is closed by then. */
  result: Promise<T>;
  /** Stops listening (idempotent); a pending `result` rejects. */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at a port the OS picks, for one `GET /callback` (RFC 8252 loopback
 * redirect). The first callback settles the flow, valid or not, and the listener closes: a
 * second one, or a late one, finds nobody listening. Other paths answer 404 and change nothing,
 * so a browser asking for `/favicon.ico` does no harm.
 *
 * When `accept` took the callback and it carries `complete_uri` (the gateway adds it), the page
 * sends the browser on to that gateway page, so the flow ends in the gateway's own look. A
 * refused callback never does: its `complete_uri` may come from anyone.
 *
 * @example
 * const listener = await listenForCallback({ accept: (q) => q.get('code'), ... });
 * openBrowser(`${base}/cli/authorize?redirect_uri=${listener.redirectUri}&...`);
 * const code = await listener.result;
 */
export async function listenForCallback<T>(
  options: CallbackOptions<T>,
): Promise<CallbackListener<T>> {
  let settle: { resolve(value: T): void; reject(error: unknown): void } | undefined;
  const result = new Promise<T>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let done = false;
  let timer: NodeJS.Timeout | undefined;

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      answer(response, 404, { title: 'Not found', message: 'Nothing here.' });
      return;
    }
    if (request.method !== 'GET') {
      answer(response, 405, { title: 'Not allowed', message: 'Only GET is answered here.' });
      return;
    }
    if (done) {
      answer(response, 410, {
        title: 'Already finished',
        message: 'This request has already been answered.',
      });
      return;
    }
    done = true;
    clearTimeout(timer);
    // Settled once the page is sent: settling closes the listener, which cuts the connection.
    try {
      const value = options.accept(url.searchParams);
      const next = completeUri(url.searchParams);
      answer(response, 200, { ...options.success, next }, () => settle?.resolve(value));
    } catch (error) {
      const message = CliError.isInstance(error) ? error.message : 'Something went wrong.';
      answer(response, 400, { title: 'That did not work', message }, () => settle?.reject(error));
    }
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    clearTimeout(timer);
    if (!done) {
      done = true;
      settle?.reject(new CliError('Stopped waiting for the browser'));
    }
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A browser keeps its connection open; the flow is over, so it is cut.
      server.closeAllConnections();
    });
    return closing;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  timer = setTimeout(() => {
    if (done) return;
    done = true;
    settle?.reject(new CliError(options.timeoutMessage));
    void close();
  }, options.timeoutMs);

  const finished = result.finally(() => close());
  // Callers await `result` after opening the browser; until then a rejection is not unhandled.
  finished.catch(() => {});
  return { redirectUri: `http://127.0.0.1:${port}/callback`, result: finished, close };
}

/** The gateway page to go on to: an absolute http(s) URL with no credentials, or nothing. */
function completeUri(query: URLSearchParams): string | undefined {
  const value = query.get('complete_uri');
  if (value === null || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  return web && url.username === '' && url.password === '' ? url.href : undefined;
}

function answer(response: ServerResponse, status: number, page: Answer, then?: () => void): void {
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    'Referrer-Policy': 'no-referrer',
    Connection: 'close',
  });
  // 'close' comes after the page is flushed, or when the browser went away first.
  if (then !== undefined) response.once('close', then);
  response.end(html(page));
}

// The gateway's colours and card, inline: this page has no assets to load.
const STYLE =
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1b1d23;background:#f5f6f8}' +
  'header{background:#fff;border-bottom:1px solid #d5d9e0;padding:.6rem 1rem;font-weight:700}' +
  'main{max-width:30rem;margin:0 auto;padding:1.5rem 1rem}' +
  '.card{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:1rem 1.25rem}' +
  'h1{font-size:1.4rem;margin:0 0 .5rem}a{color:#2346c7}a:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}' +
  'code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef0f4;border-radius:4px;padding:.1em .3em}';

/**
 * The message as HTML: escaped, with its `command` spans (written for the terminal) as <code>,
 * so the page shows no literal backticks (issue 18).
 */
function messageHtml(message: string): string {
  return escapeHtml(message).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function html({ title, message, next }: Answer): string {
  // A zero-delay refresh, not a redirect: the page itself still says the flow is done, for a
  // browser (or a test's fetch) that stays here.
  const refresh =
    next === undefined ? '' : `\n<meta http-equiv="refresh" content="0; url=${escapeHtml(next)}">`;
  const link =
    next === undefined ? '' : `\n<p><a href="${escapeHtml(next)}">Continue to Gateway</a></p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${escapeHtml(title)} · Gateway</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header>Gateway</header>
<main><div class="card">
<h1>${escapeHtml(title)}</h1>
<p>${messageHtml(message)}</p>${link}
</div></main>
</body>
</html>
`;
}
