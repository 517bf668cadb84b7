/*! Forked from @hono/node-server 2.1.8 (src/url.ts, src/error.ts, src/request.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */

/** A request Node parsed but the adapter cannot make a URL of: answered 400. */
export class RequestError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RequestError';
  }
}

const VALID_REQUEST_URL = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const VALID_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** Refuses a backslash in a request's path, which a URL parser would read as a slash. */
export function validateRequestTarget(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return;
  const query = target.indexOf('?');
  if (query === -1 || backslash < query) throw new RequestError('Backslash in request path');
}

/**
 * The URL of a request for `target` on `host`: as given when both are plainly valid, else as the
 * URL parser normalises it, refusing a `Host` the parser would read as another host.
 */
export function buildUrl(scheme: string, host: string, target: string): string {
  const url = `${scheme}://${host}${target}`;
  if (target === plain.target && host === plain.host) return url;
  if (!VALID_HOST.test(host)) {
    validateRequestTarget(target);
    const parsed = new URL(url);
    const bare = (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
    if (parsed.hostname.length !== host.length && parsed.hostname !== bare) {
      throw new RequestError('Invalid host header');
    }
    return parsed.href;
  }
  if (target.length === 0) return `${url}/`;
  if (target.charCodeAt(0) !== 47) throw new RequestError('Invalid URL');
  if (!VALID_REQUEST_URL.test(target) || DOT_SEGMENT.test(target)) {
    validateRequestTarget(target);
    return new URL(url).href;
  }
  plain.host = host;
  plain.target = target;
  return url;
}

/**
 * The last host and target {@link buildUrl} found plainly valid as given: a client's requests
 * name the same host and path each time (`/mcp`), and their checks cost three regular
 * expressions a request (issue 37).
 */
const plain: { host: string | undefined; target: string | undefined } = {
  host: undefined,
  target: undefined,
};

/** Node's method name as a `Request` would hold it: the common ones upper-cased. */
export function requestMethod(method: string | undefined): string {
  if (typeof method !== 'string' || method.length === 0) return 'GET';
  switch (method) {
    case 'DELETE':
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'PATCH':
    case 'POST':
    case 'PUT':
    case 'QUERY':
      return method;
  }
  const upper = method.toUpperCase();
  switch (upper) {
    case 'DELETE':
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'POST':
    case 'PUT':
      return upper;
    default:
      return method;
  }
}
