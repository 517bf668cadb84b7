import type { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, type Dispatcher } from 'undici';
import { UpstreamHttpError } from './http-error.js';
import { guardedLookup, type UrlPolicy } from './url-policy.js';

export { UpstreamHttpError };

/** What a guarded fetch is made with. */
export interface GuardedFetchOptions {
  url: URL;
  policy: UrlPolicy;
  /** The largest message (a JSON answer, one event of a stream) in bytes. */
  maxBytes: number;
  /** How long connecting may take. */
  connectTimeoutMs: number;
}

/** A fetch for one upstream and the connection pool it uses (close it with the upstream). */
export interface GuardedFetch {
  fetch: FetchLike;
  /** The same guarded pool, for undici's `request` (the upstream's MCP transport). */
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/**
 * The fetch the MCP client transport of one upstream uses: connections only to addresses the
 * policy allows, checked at every connect (so DNS rebinding cannot reach a refused address), no
 * redirect followed (a 3xx fails the request), and no message over `maxBytes`, whether an answer
 * or one event of a stream (a stream may run for hours; a single event may not be huge).
 */
export function guardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const { url, policy, maxBytes } = options;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs, lookup: guardedLookup(port, policy) },
    // Streams (the session's GET stream) are idle for long; calls have their own time limit.
    bodyTimeout: 0,
    headersTimeout: 0,
  });
  // undici's `request`, not its `fetch`: the WHATWG machinery costs more per call than the
  // MCP message it carries, and the SDK needs only a Response to read.
  const fetch: FetchLike = async (input, init) => {
    const target = new URL(String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const answer = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (answer.statusCode >= 300 && answer.statusCode < 400) {
      discard(answer.body);
      throw new UpstreamHttpError(
        'redirect',
        `answered a redirect (HTTP ${answer.statusCode}); the gateway does not follow an upstream's redirects`,
      );
    }
    const answerHeaders = new Headers();
    for (const [key, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const one of value) answerHeaders.append(key, one);
      else if (value !== undefined) answerHeaders.set(key, value);
    }
    const empty = answer.statusCode === 204 || answer.statusCode === 304;
    if (empty) discard(answer.body);
    return new Response(empty ? null : limited(answer.body, maxBytes), {
      status: answer.statusCode,
      headers: answerHeaders,
    });
  };
  return { fetch, dispatcher: agent, close: () => agent.close() };
}

/**
 * The body as a web stream that fails once one message passes `maxBytes`: counted from the last
 * blank line (`\n\n`, the end of a server-sent event), so a JSON answer counts whole and a stream
 * per event.
 */
function limited(body: Readable, maxBytes: number): ReadableStream<Uint8Array> {
  let size = 0;
  let lastWasNewline = false;
  // Chunks already read may still be emitted after a cancel or an error: dropped, not enqueued
  // into a closed stream (which would throw in an event handler and end the process).
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on('data', (chunk: Buffer) => {
        if (done) return;
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i];
          if (byte === 13) continue;
          if (byte === 10) {
            if (lastWasNewline) size = 0;
            lastWasNewline = true;
          } else {
            lastWasNewline = false;
          }
          size++;
        }
        if (size > maxBytes) {
          done = true;
          body.destroy();
          controller.error(
            new UpstreamHttpError('too_large', `sent a message over ${maxBytes} bytes`),
          );
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      body.once('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      body.once('error', (error) => {
        if (done) return;
        done = true;
        controller.error(error);
      });
    },
    cancel() {
      done = true;
      body.on('error', () => {});
      body.destroy();
    },
  });
}

/**
 * Drops an answer's body unread. Destroying it makes undici's stream emit an abort error, which
 * with no listener would be an uncaught exception and end the gateway's process: an upstream
 * answering a redirect must not be able to do that.
 */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}
