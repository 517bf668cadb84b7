import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup, type UrlPolicy } from './url-policy.js';

/** Why an upstream's HTTP answer was not used. */
export class UpstreamHttpError extends Error {
  readonly kind: 'redirect' | 'too_large';

  constructor(kind: 'redirect' | 'too_large', message: string) {
    super(message);
    this.name = 'UpstreamHttpError';
    this.kind = kind;
  }
}

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
  const fetch: FetchLike = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const response = await undiciFetch(String(input), {
      method: init?.method ?? 'GET',
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
      redirect: 'manual',
      dispatcher: agent,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamHttpError(
        'redirect',
        `answered a redirect (HTTP ${response.status}); the gateway does not follow an upstream's redirects`,
      );
    }
    const answerHeaders = new Headers();
    response.headers.forEach((value, key) => {
      answerHeaders.set(key, value);
    });
    const body = response.body === null ? null : response.body.pipeThrough(messageLimit(maxBytes));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: answerHeaders,
    });
  };
  return { fetch, close: () => agent.close() };
}

/**
 * Passes bytes through until one message passes `maxBytes`: counted from the last blank line
 * (`\n\n`, the end of a server-sent event), so a JSON answer counts whole and a stream per event.
 */
function messageLimit(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let lastWasNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
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
        controller.error(
          new UpstreamHttpError('too_large', `sent a message over ${maxBytes} bytes`),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
}
