import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from 'undici';
import { UpstreamHttpError } from './guarded-fetch.js';
import { type ServerSentEvent, SseParser } from './sse-lines.js';

/** What an {@link UpstreamHttpTransport} is made with. */
export interface UpstreamHttpTransportOptions {
  url: URL;
  /** The guarded connection pool of the upstream (guarded-fetch.ts). */
  dispatcher: Dispatcher;
  /** Sent on every request (the vended credential's header). */
  headers: Record<string, string>;
  /** The largest message: a JSON answer (bytes), or one event of a stream (characters). */
  maxBytes: number;
  /** A stream that breaks is opened again this many times, then left. */
  maxReconnects?: number;
}

type Body = Dispatcher.ResponseData['body'];

const ACCEPT = 'application/json, text/event-stream';
const DEFAULT_RETRY_MS = 1000;

/**
 * The MCP Streamable HTTP client transport (2025 revisions) of one upstream session, on undici's
 * `request` through the upstream's guarded pool. It stands in for the SDK's
 * `StreamableHTTPClientTransport`, whose fetch, web streams, text decoder and event parser cost
 * several times the MCP message they carry (~500 µs of CPU a call); the SDK's `Client` still runs
 * the protocol over it. Its errors are the SDK's (`StreamableHTTPError` with the HTTP status, -1
 * for an answer that is not MCP) and the guarded fetch's (a redirect, a message over the limit).
 *
 * A POST's answer is read to its end before `send` resolves, so an answer that is not MCP, or a
 * stream that ends before answering its request, fails that request instead of leaving it to
 * time out. A stream that ends after an event id but before its answer is resumed with `GET`
 * and `Last-Event-ID`, as the transport specifies; after `notifications/initialized` the
 * session's own `GET` stream is opened for what the server sends unasked (tools/list_changed).
 */
export class UpstreamHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sessionId?: string;
  readonly #options: UpstreamHttpTransportOptions;
  readonly #abort = new AbortController();
  #protocolVersion: string | undefined;
  #closed = false;
  #reconnect: ReturnType<typeof setTimeout> | undefined;

  constructor(options: UpstreamHttpTransportOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnect);
    this.#abort.abort();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const answer = await this.#request('POST', { 'content-type': 'application/json' }, message);
    const session = header(answer, 'mcp-session-id');
    if (session !== undefined) this.sessionId = session;
    if (answer.statusCode === 202) {
      discard(answer.body);
      if ('method' in message && message.method === 'notifications/initialized') this.#listen(0);
      return;
    }
    const asks = 'method' in message && 'id' in message;
    const type = mediaType(header(answer, 'content-type'));
    if (!asks) {
      discard(answer.body);
      return;
    }
    if (type === 'application/json') {
      const data = parse(await readText(answer.body, this.#options.maxBytes));
      for (const one of Array.isArray(data) ? data : [data]) {
        this.onmessage?.(asMessage(one));
        await null;
      }
      return;
    }
    if (type !== 'text/event-stream') {
      discard(answer.body);
      throw new StreamableHTTPError(-1, `Unexpected content type: ${type ?? 'none'}`);
    }
    await this.#answerStream(answer.body, message.id);
  }

  /** Reads a POST's event stream until it answers request `id`, resuming it if it breaks off. */
  async #answerStream(first: Body, id: string | number): Promise<void> {
    let body = first;
    for (let resumed = 0; ; resumed++) {
      const read = await this.#readStream(body, id);
      if (read.answered) return;
      const retryable = read.lastEventId !== undefined && resumed < this.#maxReconnects();
      if (!retryable || this.#closed) {
        throw new StreamableHTTPError(-1, 'The stream ended before it answered the request');
      }
      await delay(read.retryMs ?? DEFAULT_RETRY_MS, this.#abort.signal);
      const again = await this.#request('GET', { 'last-event-id': read.lastEventId ?? '' });
      if (mediaType(header(again, 'content-type')) !== 'text/event-stream') {
        discard(again.body);
        throw new StreamableHTTPError(-1, 'The resumed stream is not an event stream');
      }
      body = again.body;
    }
  }

  /** Delivers a stream's messages; tells whether it carried the answer to `id`. */
  async #readStream(
    body: Body,
    id: string | number | undefined,
  ): Promise<{ answered: boolean; lastEventId: string | undefined; retryMs: number | undefined }> {
    let answered = false;
    let lastEventId: string | undefined;
    const arrived: JSONRPCMessage[] = [];
    const parser = new SseParser(this.#options.maxBytes, (event: ServerSentEvent) => {
      if (event.id !== undefined) lastEventId = event.id;
      if (event.data === '' || event.event !== 'message') return;
      const message = asMessage(parse(event.data));
      if (id !== undefined && 'id' in message && message.id === id && !('method' in message)) {
        answered = true;
      }
      arrived.push(message);
    });
    body.setEncoding('utf8');
    try {
      for await (const text of body) {
        parser.push(text as string);
        // One at a time, as they would arrive apart: the SDK handles a notification a microtask
        // later, and an answer delivered in the same turn would make it drop the call's last
        // progress report as one for an unknown request.
        for (const message of arrived.splice(0)) {
          this.onmessage?.(message);
          await null;
        }
      }
    } catch (error) {
      body.destroy();
      if (error instanceof RangeError) {
        throw new UpstreamHttpError(
          'too_large',
          `sent a message over ${this.#options.maxBytes} bytes`,
        );
      }
      if (answered) return { answered, lastEventId, retryMs: parser.retryMs };
      throw error;
    }
    return { answered, lastEventId, retryMs: parser.retryMs };
  }

  /** Opens the session's GET stream, again after a break (a few times), unless 405. */
  #listen(attempt: number): void {
    if (this.#closed || this.sessionId === undefined) return;
    void (async () => {
      const answer = await this.#request('GET', {});
      if (answer.statusCode === 405) {
        discard(answer.body);
        return;
      }
      if (mediaType(header(answer, 'content-type')) !== 'text/event-stream') {
        discard(answer.body);
        throw new StreamableHTTPError(
          answer.statusCode,
          'The session stream is not an event stream',
        );
      }
      await this.#readStream(answer.body, undefined);
    })().then(
      () => this.#listenAgain(0),
      (error: unknown) => {
        if (this.#closed) return;
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        this.#listenAgain(attempt + 1);
      },
    );
  }

  #listenAgain(attempt: number): void {
    if (this.#closed || attempt >= this.#maxReconnects()) return;
    this.#reconnect = setTimeout(() => this.#listen(attempt), DEFAULT_RETRY_MS * 2 ** attempt);
    this.#reconnect.unref();
  }

  #maxReconnects(): number {
    return this.#options.maxReconnects ?? 3;
  }

  async #request(
    method: 'GET' | 'POST',
    extra: Record<string, string>,
    message?: JSONRPCMessage,
  ): Promise<Dispatcher.ResponseData> {
    const { url, dispatcher } = this.#options;
    const headers: Record<string, string> = { ...this.#options.headers, accept: ACCEPT, ...extra };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.#protocolVersion !== undefined)
      headers['mcp-protocol-version'] = this.#protocolVersion;
    const answer = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      ...(message === undefined ? {} : { body: JSON.stringify(message) }),
      signal: this.#abort.signal,
    });
    const { statusCode } = answer;
    if (statusCode >= 300 && statusCode < 400) {
      discard(answer.body);
      throw new UpstreamHttpError(
        'redirect',
        `answered a redirect (HTTP ${statusCode}); the gateway does not follow an upstream's redirects`,
      );
    }
    if (statusCode >= 400 && !(method === 'GET' && statusCode === 405)) {
      discard(answer.body);
      throw new StreamableHTTPError(statusCode, `The upstream answered HTTP ${statusCode}`);
    }
    return answer;
  }
}

/** A JSON-RPC message by its shape; the SDK's `Client` validates what it uses of it. */
function asMessage(value: unknown): JSONRPCMessage {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const message = value as Record<string, unknown>;
    const id = message.id;
    const validId = typeof id === 'string' || typeof id === 'number';
    if (message.jsonrpc === '2.0') {
      if (typeof message.method === 'string' && (id === undefined || validId)) {
        return message as JSONRPCMessage;
      }
      if (validId && isObject(message.result)) return message as JSONRPCMessage;
      if ((validId || id === null) && isObject(message.error)) return message as JSONRPCMessage;
    }
  }
  throw new StreamableHTTPError(-1, 'The upstream sent something that is not a JSON-RPC message');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new StreamableHTTPError(-1, 'The upstream sent something that is not JSON');
  }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readText(body: Body, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new UpstreamHttpError('too_large', `sent a message over ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1
    ? (chunks[0] as Buffer).toString('utf8')
    : Buffer.concat(chunks).toString('utf8');
}

function header(answer: Dispatcher.ResponseData, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A media type's essence: `text/event-stream; charset=utf-8` is `text/event-stream`. */
function mediaType(value: string | undefined): string | undefined {
  return value?.split(';', 1)[0]?.trim().toLowerCase();
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Drops an answer's body unread. Destroying it makes undici's stream emit an abort error, which
 * with no listener would be an uncaught exception: an upstream must not be able to end the
 * gateway's process.
 */
function discard(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}
