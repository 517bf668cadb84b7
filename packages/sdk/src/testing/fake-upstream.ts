import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** A request the fake upstream received. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or `undefined` when there was none. */
  body: unknown;
}

/** What a route answers: a status (default 200), a JSON body and extra headers. */
export interface Reply {
  status?: number;
  body?: unknown;
  /** E.g. `{ 'retry-after': '30' }`. */
  headers?: Record<string, string>;
}

/** A real HTTP server on 127.0.0.1 standing in for the API a tool calls. */
export interface FakeUpstream {
  /** Base URL, e.g. `http://127.0.0.1:43117`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Stops the server, dropping requests a test left hanging. */
  close(): Promise<void>;
}

/** Options of `startFakeUpstream()`. */
export interface FakeUpstreamOptions {
  /** Registers the server's `close` to run when the test ends, e.g. vitest's `onTestFinished`. */
  cleanup?: (close: () => Promise<void>) => void;
}

/**
 * Starts a fake upstream API on an ephemeral port of 127.0.0.1, so a tool's HTTP calls can be
 * tested for real, offline. Each request is recorded and answered by `route` as JSON.
 *
 * @example
 * const upstream = await startFakeUpstream(() => ({ body: { temp: 21 } }), { cleanup: onTestFinished });
 * const plugin = createWeatherPlugin({ baseUrl: upstream.url });
 * expect(upstream.requests[0]?.headers.authorization).toBe('Bearer test-key');
 */
export async function startFakeUpstream(
  route: (request: RecordedRequest) => Reply | Promise<Reply>,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
    requests.push(request);
    const reply = await route(request);
    res.writeHead(reply.status ?? 200, {
      ...reply.headers,
      'content-type': 'application/json',
    });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    })();
    return closing;
  };
  options.cleanup?.(close);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake upstream: no port');
  return { url: `http://127.0.0.1:${address.port}`, requests, close };
}
