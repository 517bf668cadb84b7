import { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse, HttpError } from './errors.js';
import { outgoingOf } from './outgoing.js';
import { limitBody } from './request-body.js';

/** The addresses a gateway answers for. */
export interface Audience {
  /** The base and auth URLs it was computed from. */
  base: string;
  auth: string;
  /** Host names (no port, lower case) a request's `Host` may carry. */
  hosts: ReadonlySet<string>;
  /** Origins (`scheme://host[:port]`) a state-changing request's `Origin` may carry. */
  origins: ReadonlySet<string>;
}

/** The settings of {@link requestGuard}. */
export interface GuardOptions {
  /** Read on every request, so addresses learnt at start (port 0) apply. */
  audience: () => Audience;
  /** The largest request body, in bytes. */
  maxBodyBytes: number;
}

/**
 * The most header fields a request may carry. The HTTP server is told to keep every field (its
 * own count would cut the list short, so a second `Host` past the cut went unseen; the 16 KiB
 * head limit still bounds them), and the guard refuses a request with more than this.
 */
export const MAX_HEADER_FIELDS = 1000;

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Where an OAuth provider posts its answer (`response_mode=form_post`) from its own origin. The
 * `state` that better-auth checks there is what binds the answer to the browser that asked.
 */
const CROSS_SITE_POSTS = /^\/api\/auth\/(?:callback|oauth2\/callback)\//;
/**
 * The token, registration and revocation endpoints of Gateway's own authorization server: called
 * by OAuth clients, browser-based ones from their own origin, never with a cookie (the client's
 * credentials are in the body), so no other site can ride a user's session through them.
 */
const OAUTH_CLIENT_POSTS = /^\/oauth\/(?:token|register|revoke)$/;

/**
 * Whether `path` takes posts from other sites ({@link CROSS_SITE_POSTS},
 * {@link OAUTH_CLIENT_POSTS}); the patterns are tried only on paths they could match.
 */
function crossSitePost(path: string): boolean {
  return (
    (path.startsWith('/api/auth/') && CROSS_SITE_POSTS.test(path)) ||
    (path.startsWith('/oauth/') && OAUTH_CLIENT_POSTS.test(path))
  );
}

/**
 * Who a gateway at `baseUrl` and `authBaseUrl` answers for: their hosts and origins, the loopback
 * names of a loopback address (with its scheme and port), `extraHosts` (`GATEWAY_ALLOWED_HOSTS`,
 * with the base URL's scheme and port) and `extraOrigins` (`GATEWAY_ALLOWED_ORIGINS`).
 *
 * @example
 * audienceOf('http://127.0.0.1:8787', 'http://127.0.0.1:8787', [], []);
 * // hosts: localhost, 127.0.0.1, [::1]; origins: http://localhost:8787, ...
 */
export function audienceOf(
  baseUrl: string,
  authBaseUrl: string,
  extraHosts: readonly string[],
  extraOrigins: readonly string[],
): Audience {
  const hosts = new Set<string>();
  const origins = new Set<string>();
  for (const address of [baseUrl, authBaseUrl]) {
    const url = new URL(address);
    const names = LOOPBACK.includes(url.hostname) ? LOOPBACK : [url.hostname];
    for (const name of names) {
      hosts.add(name);
      origins.add(`${url.protocol}//${name}${url.port === '' ? '' : `:${url.port}`}`);
    }
  }
  const base = new URL(baseUrl);
  for (const host of extraHosts) {
    const name = host.toLowerCase();
    hosts.add(name);
    origins.add(`${base.protocol}//${name}${base.port === '' ? '' : `:${base.port}`}`);
  }
  for (const origin of extraOrigins) origins.add(new URL(origin).origin);
  return { base: baseUrl, auth: authBaseUrl, hosts, origins };
}

/**
 * `GET /healthz` and `GET /readyz` answer to any `Host`: load balancers and orchestrators probe an
 * instance by its own address (a pod's IP), and the answers say only that the database answers
 * and whether the instance takes requests, which a rebinding page gains nothing from.
 */
function isHealthCheck(method: string, path: string): boolean {
  return (path === '/healthz' || path === '/readyz') && (method === 'GET' || method === 'HEAD');
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]`, `[v6]:port`). */
function hostName(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
  return (end === -1 ? host : host.slice(0, end)).toLowerCase();
}

/**
 * The last `Host` value the guard let through and the audience it was checked against. A client
 * sends the same `Host` with every request, and whether one passes depends on nothing else, so
 * the next request with the same value and audience skips its parse and lookups (~2 k
 * instructions a request, bench/mcp/README.md `chain39`). Only a value that passed is kept,
 * never one let through as a health check's.
 */
interface PassedHost {
  host: string | undefined;
  audience: Audience | undefined;
}

/**
 * The gateway's front door, in front of every route: the JSON API, MCP, the web app, the CLI
 * pages and better-auth. In order:
 *
 * 0. **Header fields**: more than {@link MAX_HEADER_FIELDS} answers 431, before anything reads them.
 * 1. **Host** must be one the gateway answers for (DNS rebinding): else 421. `GET /healthz` is
 *    the one exception, for probes that address an instance by its IP. More than one Host
 *    field: 400, health checks too.
 * 2. **Origin** of a state-changing request must be one of the gateway's own, compared as
 *    scheme, host and port, never derived from the request itself; `Origin: null` is refused. A
 *    request that sends a cookie (and no bearer credential) without `Origin` must say
 *    `Sec-Fetch-Site: same-origin`, so a cookie-authenticated form can only come from the
 *    gateway's pages. Else 403.
 * 3. **Size** before parsing: a declared `Content-Length` over the limit answers 413 at once, and
 *    a body without one is cut off at the limit while it streams, so no request makes the server
 *    buffer more than the limit.
 *
 * Every answer carries `X-Content-Type-Options: nosniff` (set on Node's response for requests from
 * the network, on Hono's for those handed over in process).
 *
 * @example
 * app.use('*', requestGuard({ audience: () => audience, maxBodyBytes: 1024 * 1024 }));
 */
export function requestGuard(options: GuardOptions): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Context) => {
    const message = `The body is larger than the limit of ${options.maxBodyBytes} bytes`;
    // OAuth clients parse only RFC 6749's error shape.
    if (OAUTH_CLIENT_POSTS.test(c.req.path)) {
      return c.json({ error: 'invalid_request', error_description: message }, 413, {
        'Cache-Control': 'no-store',
      });
    }
    return errorResponse(c, new HttpError('payload_too_large', message));
  };
  const limit = limitBody({ maxSize: options.maxBodyBytes, onError: tooLarge });
  const passed: PassedHost = { host: undefined, audience: undefined };
  // From the network a Content-Length is digits alone (Node's parser refuses anything else): one
  // with fewer digits than the limit is under it, without a conversion to a number.
  const whole = Math.floor(options.maxBodyBytes);
  const limitDigits = Number.isSafeInteger(whole) ? String(whole).length : 0;
  // Not an async function: a request from the network with a declared length (every MCP call)
  // passes it without a promise or a turn of its own; the rest goes through `guardedNext`.
  return (c, next) => {
    // From the network the header is preset on Node's response and joins the answer's head
    // (gateway-response.ts); set on Hono's response, it makes the adapter build a `Headers` object.
    const outgoing = outgoingOf(c);
    outgoing?.preset('X-Content-Type-Options', 'nosniff');
    const refusal = fieldsRefusal(c) ?? addressRefusal(c, options.audience(), passed);
    if (refusal !== undefined) return Promise.resolve(refusal);
    // Decided from the headers: touching `c.req.raw.body` would make the Node adapter build a
    // full Request and a web stream for every request, the MCP endpoint's included.
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      // The HTTP server holds the client to its Content-Length: checking it is enough.
      if (outgoing !== undefined && declared.length < limitDigits) return next();
      if (Number(declared) > options.maxBodyBytes) return Promise.resolve(nosniff(tooLarge(c)));
      if (outgoing !== undefined) return next();
    }
    return guardedNext(c, next, declared !== undefined, outgoing !== undefined, limit);
  };
}

/**
 * The rest of the guard for a request not passed on at once: a streamed body (or one handed over
 * in process) cut off at the limit, and `nosniff` set on an answer given in process.
 */
async function guardedNext(
  c: Context<AppEnv>,
  next: Next,
  lengthChecked: boolean,
  fromNetwork: boolean,
  limit: MiddlewareHandler,
): Promise<void> {
  if (lengthChecked && c.req.header('transfer-encoding') === undefined) await next();
  else if (c.req.header('transfer-encoding') !== undefined || inProcessBody(c)) {
    // Answers 413 itself (without calling next) once a streamed body passes the limit.
    const refused = await limit(c, next);
    if (refused instanceof Response) c.res = refused;
  } else await next();
  if (fromNetwork) return;
  // In process (`gateway.fetch()`): set in place, since assigning `c.res` again would make Hono
  // copy the response, body and all.
  const answer = nosniff(c.res);
  if (answer !== c.res) c.res = answer;
}

/**
 * Why the request's `Host` or `Origin` is refused (steps 1 and 2 of {@link requestGuard}), as the
 * answer, or undefined.
 */
function addressRefusal(
  c: Context<AppEnv>,
  audience: Audience,
  passed: PassedHost,
): Response | undefined {
  const host = c.req.header('host') ?? new URL(c.req.url).host;
  if (host !== passed.host || audience !== passed.audience) {
    const refusal = hostRefusal(c, host, audience);
    if (refusal !== undefined) return refusal;
    if (audience.hosts.has(hostName(host))) {
      passed.host = host;
      passed.audience = audience;
    }
  }
  const { method, path } = c.req;
  if (SAFE_METHODS.has(method) || crossSitePost(path)) return undefined;
  const refusal = originRefusal(audience, c);
  return refusal === undefined
    ? undefined
    : nosniff(errorResponse(c, new HttpError('forbidden', refusal)));
}

/** Why the `Host` value `host` is refused (step 1 of {@link requestGuard}), as the answer. */
function hostRefusal(c: Context<AppEnv>, host: string, audience: Audience): Response | undefined {
  // Two Host fields arrive joined (`a, b`): Node builds the URL from the first, the check
  // below would read the first too, and what a proxy in front took is anyone's guess. RFC 9112
  // (section 3.2) asks for a 400; a host name never holds a comma.
  if (host.includes(',')) {
    return nosniff(
      errorResponse(c, new HttpError('bad_request', 'The request has more than one Host header')),
    );
  }
  if (!audience.hosts.has(hostName(host)) && !isHealthCheck(c.req.method, c.req.path)) {
    return nosniff(
      errorResponse(
        c,
        new HttpError(
          'misdirected_request',
          "The Host header names a host this gateway does not answer for; use its address (GATEWAY_BASE_URL), or add the name to the operator's GATEWAY_ALLOWED_HOSTS",
        ),
      ),
    );
  }
  return undefined;
}

/**
 * The 431 for a request from the network with more than {@link MAX_HEADER_FIELDS} header fields
 * (Node's raw list), else undefined; one handed over in process has no such limit.
 */
function fieldsRefusal(c: Context): Response | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  const { incoming } = env;
  if (!(incoming instanceof IncomingMessage)) return undefined;
  if (incoming.rawHeaders.length / 2 <= MAX_HEADER_FIELDS) return undefined;
  return nosniff(
    errorResponse(
      c,
      new HttpError(
        'request_header_fields_too_large',
        `The request has more than ${MAX_HEADER_FIELDS} header fields`,
      ),
    ),
  );
}

/**
 * Why a state-changing request's origin is refused, or undefined when it is the gateway's. The
 * headers are read only as far as the answer needs them: an MCP call (no `Origin`, no `Cookie`)
 * pays two lookups.
 */
function originRefusal(audience: Audience, c: Context<AppEnv>): string | undefined {
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    return audience.origins.has(origin)
      ? undefined
      : 'This request comes from another site (its Origin is not this gateway); send it from a Gateway page';
  }
  // Browsers send Origin with every POST; one that sends neither header is not a Gateway page.
  if (
    c.req.header('cookie') !== undefined &&
    c.req.header('authorization') === undefined &&
    c.req.header('sec-fetch-site') !== 'same-origin'
  ) {
    return 'A request signed in by cookie must come from a Gateway page (no Origin header was sent)';
  }
  return undefined;
}

/**
 * Whether a request handed over in process (`gateway.fetch()`, which carries no Content-Length)
 * has a body. From the network, HTTP says a request without Content-Length or
 * Transfer-Encoding has none.
 */
function inProcessBody(c: Context): boolean {
  return outgoingOf(c) === undefined && c.req.raw.body !== null;
}

function nosniff(response: Response): Response {
  try {
    response.headers.set('X-Content-Type-Options', 'nosniff');
    return response;
  } catch {
    // A response with immutable headers (Response.redirect): copied with the header added.
    const copy = new Response(response.body, response);
    copy.headers.set('X-Content-Type-Options', 'nosniff');
    return copy;
  }
}
