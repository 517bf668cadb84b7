import type { Readable } from 'node:stream';
import {
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import type { Dispatcher } from 'undici';
import { delay, type StopSource, stopOf } from './abort-signals.js';
import { mirrorEnvelope } from './envelope-headers.js';
import { UpstreamHttpError } from './guarded-fetch.js';
import { exchange, type HttpAnswer, InFlight } from './http-exchange.js';
import { TOO_DEEP, tooDeepParsed } from './message-depth.js';
import { type ServerSentEvent, SseParser } from './sse-lines.js';

/** What an {@link UpstreamHttpTransport} is made with. */
export interface UpstreamHttpTransportOptions {
  url: URL;
  /** The guarded connection pool of the upstream (guarded-fetch.ts). */
  dispatcher: Dispatcher;
  /** Sent on every request: the credential header of the one credential its client is for. */
  headers: Record<string, string>;
  /** The largest message: a JSON answer (bytes), or one event of a stream (characters). */
  maxBytes: number;
  /** A stream that breaks is opened again this many times, then left. */
  maxReconnects?: number;
  /**
   * How long a POST that asks nothing of its own (a notification, an answer to the upstream's
   * request) may take, when its sender gave no signal (default {@link MESSAGE_TIMEOUT_MS}).
   */
  messageTimeoutMs?: number | undefined;
}

/**
 * The default of {@link UpstreamHttpTransportOptions.messageTimeoutMs}. Nothing else bounds such
 * a POST: the SDK's time limits cover requests only (at connect, `initialize`), and the upstream's
 * pool sets none, since a call's stream may rightly stay open for as long as its tool runs. An
 * upstream accepts a notification at once (a 202); 10 s is far past that on any network, and
 * under the 15 s connect limit (connection.ts), so a connect held on `notifications/initialized`
 * fails within the time an admin is told connecting may take.
 */
const MESSAGE_TIMEOUT_MS = 10_000;

type Body = Readable;

const ACCEPT = 'application/json, text/event-stream';
const DEFAULT_RETRY_MS = 1000;
/** The plain calls' requests kept per envelope ({@link UpstreamHttpTransport.#plainCall}). */
const MAX_PLAIN_CALLS = 256;

/** A plain call's headers, and its body's text after the id up to the arguments, and after them. */
interface PlainCall {
  name: string;
  method: string;
  headers: Record<string, string>;
  head: string;
  tail: string;
}

/** How much of an HTTP error's body is read: enough for a JSON-RPC error, never a flood. */
const ERROR_BODY_BYTES = 16 * 1024;

/**
 * The MCP Streamable HTTP client transport of one upstream, on undici's dispatcher (the upstream's
 * guarded pool, {@link exchange}), for the MCP SDK v2 `Client` in both revisions: a 2025-11-25
 * session (`initialize`, `Mcp-Session-Id`, the session's `GET` stream) and the stateless 2026-07-28
 * revision (every request its own POST, its `_meta` envelope mirrored in `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name`). It stands in for the SDK's `StreamableHTTPClientTransport`, whose
 * fetch, web streams, text decoder and event parser cost several times the MCP message they carry.
 * Its errors are the SDK's (`SdkHttpError` with the HTTP status and the start of the body, which
 * the SDK's version probe reads; `SdkError` `ClientHttpUnexpectedContent` for an answer that is not
 * MCP) and the guarded fetch's (a redirect, a message over the limit).
 *
 * A POST's answer is read to its end before `send` resolves, so an answer that is not MCP, or a
 * stream that ends before answering its request, fails that request instead of leaving it to time
 * out. A stream that ends after an event id but before its answer is resumed with `GET` and
 * `Last-Event-ID`, as the transport specifies. Each request may carry its own headers (the SDK's
 * per-request ones) and its own abort signal: aborting it closes that request's stream, which is
 * how the 2026-07-28 revision cancels. After `notifications/initialized` a 2025 session's own `GET`
 * stream is opened for what the server sends unasked.
 */
export class UpstreamHttpTransport implements Transport {
  readonly hasPerRequestStream = true;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sessionId?: string;
  readonly #options: UpstreamHttpTransportOptions;
  readonly #abort = new AbortController();
  #protocolVersion: string | undefined;
  #closed = false;
  #reconnect: ReturnType<typeof setTimeout> | undefined;
  /** The gateway's own requests ({@link call}) waiting for their answer, by id. */
  readonly #awaiting = new Map<string, (answer: JSONRPCMessage) => void>();
  #calls = 0;
  /** The URL's origin and path, read once: a `URL`'s getters build their string on every read. */
  readonly #origin: string;
  readonly #path: string;
  /** Requests sent and not yet answered to their end: stopped when the transport closes. */
  readonly #inFlight = new InFlight();
  /**
   * The last `_meta` envelope {@link call} sent, and its JSON: a connection puts the same one,
   * made once and never changed (connection.ts), on every plain call, and it is most of the
   * request's body (issue 37).
   */
  #envelope: { value: object; json: string } | undefined;
  /** The plain calls' requests of the last envelope, by tool ({@link #plainCall}). */
  #plain:
    | { envelope: object; json: string; calls: Map<string, PlainCall>; last?: PlainCall }
    | undefined;

  constructor(options: UpstreamHttpTransportOptions) {
    this.#options = options;
    this.#origin = options.url.origin;
    this.#path = `${options.url.pathname}${options.url.search}`;
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
    this.#inFlight.abortAll(this.#abort.signal.reason);
    this.onclose?.();
  }

  /** The protocol version the SDK client settled on at connect, when it told. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * Sends one request of the gateway's own, past the SDK client (issue 37: a plain 2026-07-28
   * call needs none of its per-request machinery), and answers its answer, a result or a
   * JSON-RPC error, as it came. It goes out as {@link send} sends the client's (the same
   * headers, body limit, stream reading and resumption); whatever else the upstream sends on the
   * way (notifications) goes to `onmessage`, to the SDK client, as before. `stop` stops it (a
   * call's own stop: no signal is made for it); `frame`, when given, is what the messages handed
   * to the SDK client are handed over in (the call's context, where its relays find the call): a
   * JSON answer to the request itself needs none. `sent`, when given, is told once the request is
   * written, or failed before (`exchange`).
   *
   * @throws as {@link send}; and for an answer that never came (a stream that ended without it).
   */
  async call(
    method: string,
    params: Record<string, unknown>,
    stop: StopSource,
    frame?: Frame,
    sent?: () => void,
  ): Promise<JSONRPCMessage> {
    this.#calls += 1;
    const id = `gw-${this.#calls}`;
    const message: JSONRPCMessage = { jsonrpc: '2.0', id, method, params };
    let answer: JSONRPCMessage | undefined;
    const take = (one: JSONRPCMessage) => {
      answer = one;
    };
    const plain = this.#plainCall(method, params);
    if (plain === undefined) {
      this.#awaiting.set(id, take);
      try {
        await this.#send(message, undefined, stop, this.#callText(id, method, params), frame, sent);
      } finally {
        this.#awaiting.delete(id);
      }
    } else {
      // As `#post` sends it and reads its answer, without an async function of its own: a turn
      // fewer (issue 37). As `#send`, nothing goes out on the closed transport.
      if (this.#closed) throw this.#abort.signal.reason;
      const text = `{"jsonrpc":"2.0","id":"${id}${plain.head}${JSON.stringify(params.arguments)}${plain.tail}`;
      let http: HttpAnswer | undefined;
      try {
        http = checked('POST', await this.#request('POST', plain.headers, text, stop, sent, true));
      } catch (error) {
        answer = this.#refusal(error, message);
      }
      if (http !== undefined) {
        // A JSON answer is taken here; a stream's messages find their request by its id, which
        // waits only then (issue 37: a map filled and emptied per call cost its shrinking).
        const streamed = !http.whole;
        if (streamed) this.#awaiting.set(id, take);
        try {
          const rest = this.#answered(message, http, frame, stop, take);
          if (rest !== undefined) await rest;
        } finally {
          if (streamed) this.#awaiting.delete(id);
        }
      }
    }
    if (answer === undefined) throw notMcp('The upstream did not answer the request');
    return answer;
  }

  /**
   * A plain call's request as it goes out, made once per tool of the connection's envelope: its
   * headers as {@link send} would make them, and its body's text around the id and the arguments
   * (the call's `id` is `gw-` and digits: nothing to escape). A plain call is what `sendCall` makes:
   * exactly `name`, `arguments` (an object) and the connection's `_meta` envelope, which names its
   * revision, on a transport without a session; anything else is undefined and goes out as any
   * request (issue 37: the headers' copies and checks, the envelope's mirror and the body's copies
   * cost ~5 k instructions a call). The credential header is the connection's own, set once.
   */
  #plainCall(method: string, params: Record<string, unknown>): PlainCall | undefined {
    const { name, _meta: meta } = params;
    if (
      this.sessionId !== undefined ||
      typeof name !== 'string' ||
      !isObject(params.arguments) ||
      !isObject(meta) ||
      Object.keys(params).length !== 3
    ) {
      return undefined;
    }
    let plain = this.#plain;
    if (plain === undefined || plain.envelope !== meta) {
      const version = (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
      if (typeof version !== 'string') return undefined;
      plain = { envelope: meta as object, json: JSON.stringify(meta), calls: new Map() };
      this.#plain = plain;
    }
    // The last tool called first: a `Map` lookup hashes the name (~1.7 k instructions a call).
    let call = plain.last;
    if (call?.name !== name || call.method !== method) call = plain.calls.get(name);
    if (call === undefined || call.method !== method) {
      const extra: Record<string, string> = { 'content-type': 'application/json' };
      mirrorEnvelope({ jsonrpc: '2.0', id: 0, method, params }, extra);
      call = {
        name,
        method,
        headers: { ...this.#options.headers, accept: ACCEPT, ...extra },
        head: `","method":${JSON.stringify(method)},"params":{"name":${JSON.stringify(name)},"arguments":`,
        tail: `,"_meta":${plain.json}}}`,
      };
      if (plain.calls.size >= MAX_PLAIN_CALLS) plain.calls.clear();
      plain.calls.set(name, call);
    }
    plain.last = call;
    return call;
  }

  /**
   * The body of request `id` of {@link call}, as `JSON.stringify` writes it, with its `_meta`
   * envelope's JSON written once per envelope (last in `params`, where the call puts it); undefined
   * when it has none (then it is stringified whole).
   */
  #callText(id: string, method: string, params: Record<string, unknown>): string | undefined {
    if (!isObject(params._meta)) return undefined;
    const { _meta: meta, ...rest } = params;
    let envelope = this.#envelope;
    if (envelope === undefined || envelope.value !== meta) {
      envelope = { value: meta as object, json: JSON.stringify(meta) };
      this.#envelope = envelope;
    }
    const others = JSON.stringify(rest);
    const withMeta =
      others === '{}'
        ? `{"_meta":${envelope.json}}`
        : `${others.slice(0, -1)},"_meta":${envelope.json}}`;
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${withMeta}}`;
  }

  /** Whether `message` answers a request of ours ({@link call}) that waits for it. */
  #waitsFor(message: JSONRPCMessage): boolean {
    return (
      typeof (message as { id?: unknown }).id === 'string' &&
      !('method' in message) &&
      this.#awaiting.has((message as { id: string }).id)
    );
  }

  /** Hands `message` to the request of ours it answers, or else to the SDK client. */
  #deliver(message: JSONRPCMessage): void {
    if (this.#awaiting.size > 0 && !('method' in message) && 'id' in message) {
      const waiting = typeof message.id === 'string' ? this.#awaiting.get(message.id) : undefined;
      if (waiting !== undefined) {
        waiting(message);
        return;
      }
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const signal = options?.requestSignal;
    return this.#send(
      message,
      options?.headers,
      signal === undefined ? undefined : stopOf(signal),
      undefined,
      undefined,
    );
  }

  /**
   * {@link send}, with `message`'s JSON when its sender wrote it already. Not an async function of
   * its own: a call's request takes one promise and turn fewer (issue 37).
   */
  #send(
    message: JSONRPCMessage,
    headers: TransportSendOptions['headers'],
    stop: StopSource | undefined,
    text: string | undefined,
    frame: Frame | undefined,
    sent?: () => void,
  ): Promise<void> {
    try {
      const extra: Record<string, string> = { 'content-type': 'application/json' };
      if (headers !== undefined) Object.assign(extra, headers);
      mirrorEnvelope(message, extra);
      // As a request on the closed transport's aborted signal always failed.
      if (this.#closed) return Promise.reject(this.#abort.signal.reason);
      if (stop === undefined && !('method' in message && 'id' in message)) {
        return this.#postMessage(message, extra);
      }
      return this.#post(message, extra, stop, text, frame, sent);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Posts `message`, which asks nothing of its own, within the message time limit: an upstream
   * that never answers it would otherwise hold its sender (the SDK's connect, on
   * `notifications/initialized`) for good. Closing stops it at once, as every request
   * (`#inFlight`).
   *
   * @throws UpstreamHttpError `timeout` when the limit passes first; else as {@link send}.
   */
  async #postMessage(message: JSONRPCMessage, extra: Record<string, string>): Promise<void> {
    const limitMs = this.#options.messageTimeoutMs ?? MESSAGE_TIMEOUT_MS;
    const limit = new AbortController();
    const timer = setTimeout(() => {
      const what = 'method' in message ? message.method : 'the answer to its request';
      limit.abort(
        new UpstreamHttpError('timeout', `did not accept ${what} within ${limitMs / 1000} s`),
      );
    }, limitMs);
    try {
      await this.#post(message, extra, stopOf(limit.signal));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends `message` (as `text`, its JSON, when given) and reads its answer to the end; `stop`
   * (and closing) stops both. What goes to the SDK client goes in `frame`, when given. `whole`
   * says `extra` is every header already ({@link #plainCall}).
   */
  async #post(
    message: JSONRPCMessage,
    extra: Record<string, string>,
    stop: StopSource | undefined,
    text?: string,
    frame?: Frame,
    sent?: () => void,
    whole = false,
  ): Promise<void> {
    let answer: HttpAnswer;
    try {
      answer = checked(
        'POST',
        await this.#request('POST', extra, text ?? JSON.stringify(message), stop, sent, whole),
      );
    } catch (error) {
      this.#deliverIn(frame, this.#refusal(error, message));
      return;
    }
    const rest = this.#answered(message, answer, frame, stop);
    if (rest !== undefined) await rest;
  }

  /**
   * The answer a request's failure carries: a 2026-07-28 server answers a request it refuses
   * (unknown tool, bad arguments) with a 400 carrying the JSON-RPC error, which is its answer, not
   * a transport failure.
   *
   * @throws `error` itself, for anything else.
   */
  #refusal(error: unknown, message: JSONRPCMessage): JSONRPCMessage {
    const refusal =
      error instanceof SdkHttpError && error.status === 400
        ? errorAnswer(String(error.data.text ?? ''), message)
        : undefined;
    if (refusal === undefined) throw error;
    return refusal;
  }

  /**
   * Reads `answer`, the answer to `message`, to its end ({@link #post}): a promise only when
   * there is something to wait for (a batch delivered a message at a time, a stream); a JSON
   * answer is taken at once, without a turn (issue 37). The answer to `message` in a JSON body
   * goes to `take` when given, else where every message goes ({@link #deliver}).
   *
   * @throws (synchronously) an answer that is not MCP, too large, or not the one asked for.
   */
  #answered(
    message: JSONRPCMessage,
    answer: HttpAnswer,
    frame: Frame | undefined,
    stop: StopSource | undefined,
    take?: (answer: JSONRPCMessage) => void,
  ): Promise<void> | undefined {
    const session = header(answer, 'mcp-session-id');
    if (session !== undefined) this.sessionId = session;
    if (answer.statusCode === 202) {
      drop(answer);
      if ('method' in message && message.method === 'notifications/initialized') this.#listen(0);
      return undefined;
    }
    const asks = 'method' in message && 'id' in message;
    if (!asks) {
      drop(answer);
      return undefined;
    }
    // A JSON answer, read whole (http-exchange.ts).
    if (answer.whole) {
      if (answer.text === undefined) throw tooLarge(this.#options.maxBytes);
      const data = parse(answer.text);
      // As a stream's (below): only the answer to this request is taken as an answer.
      if (!Array.isArray(data)) {
        const one = asMessage(data);
        const answered = !('method' in one) && one.id === message.id;
        if (answered && take !== undefined) take(one);
        else if (answered || 'method' in one) this.#deliverIn(frame, one);
        if (!answered) throw notAnswered();
        return undefined;
      }
      return inFrame(frame, () => this.#deliverBatch(data, message.id, take)).then((answered) => {
        if (!answered) throw notAnswered();
      });
    }
    const type = mediaType(header(answer, 'content-type'));
    if (type !== 'text/event-stream') {
      discard(answer.body);
      throw notMcp(`Unexpected content type: ${type ?? 'none'}`);
    }
    const { body } = answer;
    return inFrame(frame, () => this.#answerStream(body, message.id, stop));
  }

  /** {@link #deliver}, in `frame` unless the message is the answer one of ours waits for. */
  #deliverIn(frame: Frame | undefined, message: JSONRPCMessage): void {
    if (frame === undefined || this.#waitsFor(message)) this.#deliver(message);
    else frame(() => this.#deliver(message));
  }

  /**
   * A batch, one message at a time as a stream's (below); tells whether it carried the answer to
   * `id`, which goes to `take` when given. Answers to other requests are dropped, as on a stream.
   */
  async #deliverBatch(
    data: unknown[],
    id: string | number,
    take?: (answer: JSONRPCMessage) => void,
  ): Promise<boolean> {
    let answered = false;
    for (const item of data) {
      const one = asMessage(item);
      if (!('method' in one)) {
        if (one.id !== id) continue;
        answered = true;
      }
      if (take !== undefined && !('method' in one)) take(one);
      else this.#deliver(one);
      await null;
    }
    return answered;
  }

  /** Reads a POST's event stream until it answers request `id`, resuming it if it breaks off. */
  async #answerStream(
    first: Body,
    id: string | number,
    stop: StopSource | undefined,
  ): Promise<void> {
    let body = first;
    for (let resumed = 0; ; resumed++) {
      const read = await this.#readStream(body, id);
      if (read.answered) return;
      const retryable = read.lastEventId !== undefined && resumed < this.#maxReconnects();
      if (!retryable || this.#closed) {
        throw notMcp('The stream ended before it answered the request');
      }
      const waiting = new AbortController();
      const offClosed = stopOf(this.#abort.signal).onStop((reason) => waiting.abort(reason));
      const offStop = stop?.onStop((reason) => waiting.abort(reason));
      try {
        await delay(read.retryMs ?? DEFAULT_RETRY_MS, waiting.signal);
      } finally {
        offClosed();
        offStop?.();
      }
      const again = checked(
        'GET',
        await this.#request('GET', { 'last-event-id': read.lastEventId ?? '' }, undefined, stop),
      );
      if (again.whole || mediaType(header(again, 'content-type')) !== 'text/event-stream') {
        drop(again);
        throw notMcp('The resumed stream is not an event stream');
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
      // Nothing after the answer belongs to the request (see below).
      if (answered) return;
      if (event.id !== undefined) lastEventId = event.id;
      if (event.data === '' || event.event !== 'message') return;
      const message = asMessage(parse(event.data));
      if (!('method' in message)) {
        // An answer belongs to the request whose stream carries it: one to another request (on
        // the session's GET stream, on another call's stream) would settle someone else's call.
        if (message.id !== id) return;
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
          this.#deliver(message);
          await null;
        }
        // The answer ends the request's stream: an upstream that keeps it open would hold a
        // socket per finished call, and go on talking (questions, log lines) as that call.
        if (answered) {
          body.on('error', () => {});
          break;
        }
      }
    } catch (error) {
      body.destroy();
      if (error instanceof RangeError) throw tooLarge(this.#options.maxBytes);
      if (answered) return { answered, lastEventId, retryMs: parser.retryMs };
      throw error;
    }
    return { answered, lastEventId, retryMs: parser.retryMs };
  }

  /** Opens the session's GET stream, again after a break (a few times), unless 405. */
  #listen(attempt: number): void {
    if (this.#closed || this.sessionId === undefined) return;
    void (async () => {
      const answer = checked('GET', await this.#request('GET', {}, undefined, undefined));
      if (answer.statusCode === 405) {
        drop(answer);
        return;
      }
      if (answer.whole || mediaType(header(answer, 'content-type')) !== 'text/event-stream') {
        drop(answer);
        throw notMcp('The session stream is not an event stream');
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

  /** A request's headers: the credential's, `Accept`, `extra`, the session's and the revision's. */
  #headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.#options.headers, accept: ACCEPT, ...extra };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.#protocolVersion !== undefined && headers['mcp-protocol-version'] === undefined) {
      headers['mcp-protocol-version'] = this.#protocolVersion;
    }
    return headers;
  }

  /**
   * Sends one request; `whole` says `extra` is every header already (never changed here). Its
   * answer is {@link checked} by the caller: not an async function of its own, a turn fewer.
   */
  #request(
    method: 'GET' | 'POST',
    extra: Record<string, string>,
    body: string | undefined,
    stop: StopSource | undefined,
    sent?: () => void,
    whole = false,
  ): Promise<HttpAnswer> {
    const { dispatcher, maxBytes } = this.#options;
    const headers = whole ? extra : this.#headers(extra);
    return exchange(
      dispatcher,
      {
        origin: this.#origin,
        path: this.#path,
        method,
        headers,
        body,
      },
      { json: maxBytes, error: ERROR_BODY_BYTES },
      stop,
      this.#inFlight,
      sent,
    );
  }
}

/**
 * `answer` to a `method` request, unless it is a redirect (never followed) or an HTTP error
 * (`SdkHttpError` with the status and the body's start, as the SDK's transport throws it; a GET's
 * 405 is an answer: no session stream).
 */
function checked(method: 'GET' | 'POST', answer: HttpAnswer): HttpAnswer {
  const { statusCode } = answer;
  if (statusCode >= 300 && statusCode < 400) {
    drop(answer);
    throw new UpstreamHttpError(
      'redirect',
      `answered a redirect (HTTP ${statusCode}); the gateway does not follow an upstream's redirects`,
    );
  }
  if (statusCode >= 400 && !(method === 'GET' && statusCode === 405)) {
    // Read whole up to ERROR_BODY_BYTES; past that, no text.
    const text = (answer.whole ? answer.text : undefined) ?? '';
    const code =
      statusCode === 401
        ? SdkErrorCode.ClientHttpAuthentication
        : statusCode === 403
          ? SdkErrorCode.ClientHttpForbidden
          : SdkErrorCode.ClientHttpNotImplemented;
    // The status and body are what the SDK's version probe reads (a 2025 server refusing
    // `server/discover`); a refusal's challenge is what step-up authorization reads.
    const challenge =
      statusCode === 401 || statusCode === 403
        ? header(answer, 'www-authenticate')?.slice(0, MAX_CHALLENGE_CHARS)
        : undefined;
    throw new SdkHttpError(code, `The upstream answered HTTP ${statusCode}`, {
      status: statusCode,
      text,
      ...(challenge === undefined ? {} : { challenge }),
    });
  }
  return answer;
}

/**
 * Runs `work` in a call's context: `(work) => storage.run(call, work)` of the call's
 * `AsyncLocalStorage` (upstream.ts), made only when a message needs it (issue 37: entering it on
 * every call cost ~7 k instructions).
 */
export type Frame = <T>(work: () => T) => T;

function inFrame<T>(frame: Frame | undefined, work: () => T): T {
  return frame === undefined ? work() : frame(work);
}

const NOT_JSON_RPC = 'The upstream sent something that is not a JSON-RPC message';

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
      // An answer is a result or an error, never both (JSON-RPC 2.0): the SDK client drops one
      // with both and its call waited for its time limit (issue 37 review).
      const hasError = 'error' in message;
      if ('result' in message ? hasError : !hasError) throw notMcp(NOT_JSON_RPC);
      if (validId && isObject(message.result)) return message as JSONRPCMessage;
      if ((validId || id === null) && isObject(message.error)) return message as JSONRPCMessage;
    }
  }
  throw notMcp(NOT_JSON_RPC);
}

function parse(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notMcp('The upstream sent something that is not JSON');
  }
  if (tooDeepParsed(text, value)) throw notMcp(TOO_DEEP);
  return value;
}

/** A JSON answer to a request that answers another request, or none. */
function notAnswered(): SdkError {
  return notMcp('The upstream answered another request than the one sent');
}

function notMcp(message: string): SdkError {
  return new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, message);
}

/** The JSON-RPC error a 400 carries for `message`, when it carries one. */
function errorAnswer(text: string, message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!('id' in message) || !('method' in message)) return undefined;
  try {
    const answer = asMessage(JSON.parse(text));
    return 'error' in answer && answer.id === message.id ? answer : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The longest `WWW-Authenticate` of a refusal kept for step-up authorization. */
const MAX_CHALLENGE_CHARS = 2000;

function header(answer: HttpAnswer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A media type's essence: `text/event-stream; charset=utf-8` is `text/event-stream`. */
function mediaType(value: string | undefined): string | undefined {
  if (value === 'application/json' || value === 'text/event-stream') return value;
  return value?.split(';', 1)[0]?.trim().toLowerCase();
}

/**
 * Drops an answer's body unread. Destroying it makes the stream emit an abort error, which with
 * no listener would be an uncaught exception: an upstream must not be able to end the gateway's
 * process.
 */
function discard(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}

/** Drops whatever is left of `answer`: a stream unread (a body read whole is already done). */
function drop(answer: HttpAnswer): void {
  if (!answer.whole) discard(answer.body);
}

function tooLarge(maxBytes: number): UpstreamHttpError {
  return new UpstreamHttpError('too_large', `sent a message over ${maxBytes} bytes`);
}
