/*! Forked from @hono/node-server 2.1.8 (src/response.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */
import { inspectAsLightweight } from './inspect.js';
import {
  type BodyInit,
  type HeadersInit,
  isHeaders,
  isNativeResponse,
  nativeWebClasses,
  onNativeWebClasses,
} from './web-globals.js';

/** The type of an answer with a body and no `Content-Type` of its own. */
export const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/** What the listener writes without asking a real `Response`: status, body and headers as given. */
export const cacheKey = Symbol('cache');
const nativeResponseKey = Symbol('responseCache');
/** Node's own `Response` of a light one, made on first call. */
export const toNative = Symbol('getResponseCache');

/** A body the listener writes as it is. */
export type PlainBody = string | Uint8Array | Blob | ReadableStream | null;
/** Headers as given to the constructor: a record, a list of pairs or a `Headers`. */
export type GivenHeaders = HeadersInit | undefined;
/** A light response's status, body and headers, as the listener writes them. */
export type ResponseCache = [status: number, body: PlainBody, headers: GivenHeaders];

function isPlainBody(body: unknown): body is PlainBody | undefined {
  return (
    body == null ||
    typeof body === 'string' ||
    typeof (body as { getReader?: unknown }).getReader !== 'undefined' ||
    body instanceof Blob ||
    body instanceof Uint8Array
  );
}

/**
 * The global `Response` while the adapter serves. A response of a string, bytes, a blob or a
 * stream keeps its status, body and headers as given, for the listener to write with one
 * `writeHead` (a header record needs no `Headers` object); anything else, and any other
 * property, is asked of a real `Response` made on first need. It is a `Response` to
 * `instanceof`, and Node's class is its prototype's once loaded.
 */
export class LightResponse {
  readonly #body: BodyInit | null | undefined;
  #init: ResponseInit | Response | undefined;
  // Declared only: an own property, even undefined, would mark every response as cached.
  declare [cacheKey]?: ResponseCache;
  declare [nativeResponseKey]?: Response;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    let headers: Headers | undefined;
    this.#body = body;
    if (init instanceof LightResponse || isNativeResponse(init)) {
      const made = (init as LightResponse)[nativeResponseKey];
      if (made) {
        this.#init = made;
        this[toNative]();
        return;
      }
      this.#init = init instanceof LightResponse ? init.#init : init;
      headers = new Headers((init as Response).headers);
    } else {
      this.#init = init;
    }
    if (isPlainBody(body)) {
      this[cacheKey] = [init?.status || 200, body ?? null, headers || init?.headers];
    }
  }

  [toNative](): Response {
    const cache = this[cacheKey];
    const liveHeaders = cache && isHeaders(cache[2]) ? cache[2] : undefined;
    delete this[cacheKey];
    const NativeResponse = nativeWebClasses().Response;
    this[nativeResponseKey] ??= new NativeResponse(
      this.#body,
      liveHeaders
        ? { status: this.#init?.status, statusText: this.#init?.statusText, headers: liveHeaders }
        : (this.#init as ResponseInit | undefined),
    );
    return this[nativeResponseKey];
  }

  get headers(): Headers {
    const cache = this[cacheKey];
    if (cache) {
      if (!isHeaders(cache[2])) {
        cache[2] = new Headers(
          cache[2] || (cache[1] === null ? undefined : { 'content-type': DEFAULT_CONTENT_TYPE }),
        );
      }
      return cache[2] as Headers;
    }
    return this[toNative]().headers;
  }

  get status(): number {
    return this[cacheKey]?.[0] ?? this[toNative]().status;
  }

  get ok(): boolean {
    const { status } = this;
    return status >= 200 && status < 300;
  }
}

for (const name of ['body', 'bodyUsed', 'redirected', 'statusText', 'trailers', 'type', 'url']) {
  Object.defineProperty(LightResponse.prototype, name, {
    get(this: LightResponse) {
      return (this[toNative]() as unknown as Record<string, unknown>)[name];
    },
  });
}
for (const name of ['arrayBuffer', 'blob', 'clone', 'formData', 'json', 'text']) {
  Object.defineProperty(LightResponse.prototype, name, {
    value: function call(this: LightResponse) {
      const native = this[toNative]() as unknown as Record<string, () => unknown>;
      return (native[name] as () => unknown).call(native);
    },
  });
}
inspectAsLightweight(LightResponse.prototype, 'Response', (response) => ({
  status: response.status,
  headers: response.headers,
  ok: response.ok,
}));

const REDIRECT_URL = /^https?:\/\/[!#-;=?-[\]_a-z~A-Z]+$/;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function redirectUrl(url: string | URL): string {
  if (url instanceof URL) return url.href;
  if (REDIRECT_URL.test(url)) return url;
  return new URL(url).href;
}

Object.defineProperty(LightResponse, 'redirect', {
  value: function redirect(url: string | URL, status = 302) {
    if (!REDIRECT_STATUSES.has(status)) throw new RangeError('Invalid status code');
    return new LightResponse(null, { status, headers: { location: redirectUrl(url) } });
  },
  writable: true,
  configurable: true,
});
Object.defineProperty(LightResponse, 'json', {
  value: function json(data: unknown, init?: ResponseInit) {
    const body = JSON.stringify(data);
    if (body === undefined) throw new TypeError('The data is not JSON serializable');
    const given = init?.headers;
    let headers: HeadersInit;
    if (given) {
      const made = new Headers(given);
      if (!made.has('content-type')) made.set('content-type', 'application/json');
      headers = made;
    } else {
      headers = { 'content-type': 'application/json' };
    }
    return new LightResponse(body, {
      status: init?.status ?? 200,
      statusText: init?.statusText,
      headers,
    });
  },
  writable: true,
  configurable: true,
});
// Node's only other static, which the class inherits once linked below.
Object.defineProperty(LightResponse, 'error', {
  value: function error() {
    return nativeWebClasses().Response.error();
  },
  writable: true,
  configurable: true,
});

onNativeWebClasses(({ Response }) => {
  Object.setPrototypeOf(LightResponse, Response);
  Object.setPrototypeOf(LightResponse.prototype, Response.prototype);
});
