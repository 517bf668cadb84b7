import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in for the CLI's loopback listener, for the browser tests of the CLI pages. */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** The query of every callback the browser brought, in order. */
  callbacks: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 like `gateway login` and `gateway connect` do, records each callback's
 * query, and answers as the CLI's listener does: a page, which sends the browser on to the
 * callback's `complete_uri` with a zero-delay refresh when there is one. The server package
 * cannot import the CLI (it depends the other way), hence this stand-in.
 */
export async function startLoopbackListener(): Promise<LoopbackListener> {
  const callbacks: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    callbacks.push(url.searchParams);
    const next = url.searchParams.get('complete_uri');
    const refresh =
      next === null ? '' : `<meta http-equiv="refresh" content="0; url=${new URL(next).href}">`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><title>CLI listener</title>${refresh}</head><body><h1>CLI listener</h1></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    callbacks,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
