/*! Forked from @hono/node-server 2.1.8 (src/request.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { IncomingHeaders } from '../incoming-headers.js';
import { OnceStop } from '../once-stop.js';
import {
  bodyUnusable,
  bufferedBeforeDisconnect,
  rawBodyOf,
  readIncomingBody,
} from './incoming-body.js';
import { inspectAsLightweight } from './inspect.js';
import { nativeWebClasses, onNativeWebClasses, type RequestInfo } from './web-globals.js';

/** A request's answer to "give me a real `Request`", which the adapter's `Request` unwraps. */
export const nativeRequest = Symbol('getRequestCache');
/** Aborts the request's signal (the client left). */
export const abortRequest = Symbol('abortRequest');
/** Set on a message whose body the app's read must watch for the client leaving. */
export const wrapBodyStream = Symbol('wrapBodyStream');
/** The body's bytes at once when they sit whole in the message (see `bufferedBodyOf`). */
export const bufferedBody = Symbol('bufferedBody');
/**
 * Tells a listener once when the client leaves before the answer finished, as the request's
 * `signal` would, without making the signal (see {@link whenClientLeaves}).
 */
export const onClientLeft = Symbol('onClientLeft');

type BodyMethod = 'text' | 'arrayBuffer' | 'blob';
type WatchedIncoming = IncomingMessage & { [wrapBodyStream]?: boolean };
type RequestInitWithDuplex = RequestInit & { duplex?: 'half' };

let RequestClass: typeof Request | undefined;

/**
 * The global `Request` while the adapter serves: Node's, built on first use, except that it
 * accepts one of the adapter's requests as its input and a stream body without `duplex`.
 */
export function adapterRequestClass(): typeof Request {
  RequestClass ??= requestClass(nativeWebClasses().Request);
  return RequestClass;
}

function requestClass(Native: typeof Request): typeof Request {
  return class Request extends Native {
    constructor(input: RequestInfo, options?: RequestInitWithDuplex) {
      let given = input;
      if (typeof given === 'object' && given !== null && nativeRequest in given) {
        const replacesBody = options !== undefined && 'body' in options && options.body != null;
        const light = given as unknown as NodeRequest;
        if (light.consumedDirectly && !replacesBody) {
          throw new TypeError(
            'Cannot construct a Request with a Request object that has already been used.',
          );
        }
        given = light[nativeRequest]();
      }
      if (
        options?.body !== undefined &&
        options.body !== null &&
        typeof (options.body as { getReader?: unknown }).getReader !== 'undefined'
      ) {
        options.duplex ??= 'half';
      }
      super(given, options);
    }
  };
}

const textDecoder = new TextDecoder();
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why a body cannot be read directly for `method`, as Node's `Request` would refuse it. */
function invalidMethod(method: string): TypeError | undefined {
  if (!METHOD_TOKEN.test(method)) return new TypeError(`'${method}' is not a valid HTTP method.`);
  const upper = method.toUpperCase();
  if (upper === 'CONNECT' || upper === 'TRACK' || (upper === 'TRACE' && method !== 'TRACE')) {
    return new TypeError(`'${method}' HTTP method is unsupported.`);
  }
  return undefined;
}

/**
 * The adapter's request for one of Node's messages: method, URL and headers are answered from
 * the message, and the body is read straight from it (`text()`, `json()`, `arrayBuffer()`,
 * `blob()`); anything else (`body`, `clone()`, `formData()`, `signal` aside) is asked of a real
 * `Request` made on first need. It is a `Request` to `instanceof` once Node's class is loaded,
 * which reading the global `Request` does.
 */
export class NodeRequest {
  readonly #incoming: IncomingMessage;
  readonly #method: string;
  readonly #url: string;
  #headers: Headers | undefined;
  #abortController: AbortController | undefined;
  #abortReason: unknown;
  /** Who hears the client leave ({@link onClientLeft}), once someone listens. */
  #left: OnceStop | undefined;
  #native: Request | undefined;
  #consumedDirectly = false;
  #bodyRead: Promise<Buffer> | undefined;
  #lockReader: ReadableStreamDefaultReader | undefined;

  constructor(incoming: IncomingMessage, method: string, url: string) {
    this.#incoming = incoming;
    this.#method = method;
    this.#url = url;
  }

  get method(): string {
    return this.#method;
  }

  get url(): string {
    return this.#url;
  }

  get headers(): Headers {
    this.#headers ??= new IncomingHeaders(
      this.#incoming.rawHeaders,
      this.#incoming.headers,
    ) as unknown as Headers;
    return this.#headers;
  }

  get signal(): AbortSignal {
    return this.#controller().signal;
  }

  get body(): ReadableStream<Uint8Array> | null {
    const request = this[nativeRequest]();
    if (this.#consumedDirectly && !this.#lockReader && request.body) {
      this.#lockReader = request.body.getReader();
    }
    return request.body;
  }

  get bodyUsed(): boolean {
    if (this.#consumedDirectly) return true;
    return this.#native?.bodyUsed ?? false;
  }

  /** Whether the body was read straight from the message. */
  get consumedDirectly(): boolean {
    return this.#consumedDirectly;
  }

  text(): Promise<string> {
    return this.#readBody('text', (buffer) => textDecoder.decode(buffer));
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#readBody(
      'arrayBuffer',
      (buffer) =>
        buffer.buffer.slice(
          buffer.byteOffset,
          buffer.byteOffset + buffer.byteLength,
        ) as ArrayBuffer,
    );
  }

  blob(): Promise<Blob> {
    return this.#readBody('blob', (buffer) => {
      const type = this.headers.get('content-type') || '';
      return new Response(buffer, type ? { headers: { 'content-type': type } } : undefined).blob();
    });
  }

  json(): Promise<unknown> {
    if (this.#consumedDirectly) return Promise.reject(bodyUnusable());
    return this.text().then(JSON.parse);
  }

  clone(): Request {
    if (this.#consumedDirectly) throw bodyUnusable();
    return this[nativeRequest]().clone();
  }

  formData(): Promise<FormData> {
    if (this.#consumedDirectly) return Promise.reject(bodyUnusable());
    return this[nativeRequest]().formData();
  }

  [abortRequest](reason: unknown): void {
    if (this.#abortReason === undefined) this.#abortReason = reason;
    const controller = this.#abortController;
    if (controller && !controller.signal.aborted) controller.abort(reason);
    this.#left?.stop(this.#abortReason);
  }

  /**
   * Tells `listener` once, with the reason, when the client leaves before the answer finished (at
   * once if it has); answers the function that stops listening. The request's `signal` says the
   * same, but reading it makes an `AbortController`, and listening to it costs an event target's
   * listener and, when the client leaves, an `Event`: a call path that only needs to hear of it
   * listens here (bench/mcp/README.md, issue 37).
   */
  [onClientLeft](listener: (reason: unknown) => void): () => void {
    this.#left ??= new OnceStop();
    if (this.#abortReason !== undefined) this.#left.stop(this.#abortReason);
    return this.#left.onStop(listener);
  }

  #controller(): AbortController {
    this.#abortController ??= new AbortController();
    if (this.#abortReason !== undefined && !this.#abortController.signal.aborted) {
      this.#abortController.abort(this.#abortReason);
    }
    return this.#abortController;
  }

  /**
   * A POST's body's bytes at once, marking the body read as `arrayBuffer()` would, when it sits
   * whole in the message's buffer (`takeBufferedBody` kept it, `rawBodyOf`); else undefined,
   * nothing read.
   */
  [bufferedBody](): Buffer | undefined {
    if (this.#method !== 'POST' || this.#consumedDirectly || this.#native) return undefined;
    const raw = rawBodyOf(this.#incoming);
    if (raw === undefined) return undefined;
    this.#consumedDirectly = true;
    return raw;
  }

  /** A real `Request` of the same method, URL, headers, signal and (unread) body. */
  [nativeRequest](): Request {
    const signal = this.#controller().signal;
    if (this.#native) return this.#native;
    const method = this.#method;
    const AdapterRequest = adapterRequestClass();
    const init: RequestInitWithDuplex = {
      method: method === 'TRACE' ? 'GET' : method,
      headers: this.headers,
      signal,
    };
    if (method !== 'GET' && method !== 'HEAD' && method !== 'TRACE') {
      init.body = this.#consumedDirectly
        ? new ReadableStream({ start: (controller) => controller.close() })
        : bodyStream(this.#incoming);
      if (this.#consumedDirectly) init.duplex = 'half';
    }
    const request = new AdapterRequest(this.#url, init);
    if (method === 'TRACE') {
      Object.defineProperty(request, 'method', { get: () => 'TRACE' });
    }
    this.#native = request;
    return request;
  }

  /** Reads the body straight from the message, once; GET and HEAD ask a real `Request`. */
  #readBody<T>(method: BodyMethod, fromBuffer: (buffer: Buffer) => T | Promise<T>): Promise<T> {
    if (this.#consumedDirectly) return Promise.reject(bodyUnusable());
    const name = this.#method;
    if (name === 'GET' || name === 'HEAD') {
      return this[nativeRequest]()[method]() as Promise<T>;
    }
    const invalid = invalidMethod(name);
    if (invalid) return Promise.reject(invalid);
    if (this.#native && name !== 'TRACE') return this.#native[method]() as Promise<T>;
    this.#consumedDirectly = true;
    const raw = rawBodyOf(this.#incoming);
    if (raw) return Promise.resolve(fromBuffer(raw));
    return this.#readDirect().then(fromBuffer);
  }

  #readDirect(): Promise<Buffer> {
    if (this.#bodyRead) return this.#bodyRead;
    const incoming = this.#incoming;
    if (incoming.readableDidRead) return Promise.reject(bodyUnusable());
    const buffered = bufferedBeforeDisconnect(incoming);
    if (buffered !== undefined) {
      return buffered instanceof Error ? Promise.reject(buffered) : Promise.resolve(buffered);
    }
    this.#bodyRead = readIncomingBody(incoming, () => this.#abortError()).finally(() => {
      this.#bodyRead = undefined;
    });
    return this.#bodyRead;
  }

  #abortError(): Error {
    const incoming = this.#incoming;
    if (incoming.errored) return incoming.errored;
    const reason = this.#abortReason;
    if (reason !== undefined) return reason instanceof Error ? reason : new Error(String(reason));
    return new Error('Client connection prematurely closed.');
  }
}

// Proxied to a real `Request`, as Node's own would answer them.
for (const name of [
  'cache',
  'credentials',
  'destination',
  'duplex',
  'integrity',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
  'keepalive',
] as const) {
  Object.defineProperty(NodeRequest.prototype, name, {
    get(this: NodeRequest) {
      return (this[nativeRequest]() as unknown as Record<string, unknown>)[name];
    },
  });
}

inspectAsLightweight(NodeRequest.prototype, 'Request', (request) => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
}));

onNativeWebClasses(() => {
  Object.setPrototypeOf(NodeRequest.prototype, adapterRequestClass().prototype);
});

/** The message's body as a web stream, served from the buffer if the client left after it. */
function bodyStream(incoming: WatchedIncoming): ReadableStream<Uint8Array> {
  const raw = rawBodyOf(incoming);
  if (raw) {
    return new ReadableStream({
      start(controller) {
        controller.enqueue(raw);
        controller.close();
      },
    });
  }
  if (incoming[wrapBodyStream]) return watchedBodyStream(incoming);
  const buffered = bufferedBeforeDisconnect(incoming);
  if (buffered !== undefined) {
    return new ReadableStream({ start: (controller) => enqueueBuffered(controller, buffered) });
  }
  return Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
}

/** A stream of the body that checks, when first pulled, whether the client left after it. */
function watchedBodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream({
    async pull(controller) {
      try {
        if (!reader) {
          const buffered = bufferedBeforeDisconnect(incoming);
          if (buffered !== undefined) {
            enqueueBuffered(controller, buffered);
            return;
          }
        }
        reader ??= (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

function enqueueBuffered(
  controller: ReadableStreamDefaultController<Uint8Array>,
  buffered: Buffer | Error,
): void {
  if (buffered instanceof Error) {
    controller.error(buffered);
    return;
  }
  if (buffered.length > 0) controller.enqueue(buffered);
  controller.close();
}
