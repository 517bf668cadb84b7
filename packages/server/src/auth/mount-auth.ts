import type { Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { type ErrorCode, errorCodes } from '../http/errors.js';
import { bodyReadError } from '../http/request-body.js';
import { CLIENT_IP_HEADER, clientAddress } from './client-ip.js';
import type { GatewayAuth } from './create-auth.js';
import { withCallbackContext } from './generic-oidc/callback-context.js';

/**
 * Mounts better-auth at `/api/auth/*`, plus the pinned generic OAuth callback
 * `/api/auth/oauth2/callback/<id>`, which better-auth 1.7 serves at `/api/auth/callback/<id>`:
 * the redirect URI registered upstream stays the same whatever path better-auth uses.
 *
 * Every request reaches better-auth with the client address in {@link CLIENT_IP_HEADER} (for
 * its rate limiter), and every error it answers is rewritten to the gateway's error body.
 */
export function mountAuth(app: Hono<AppEnv>, auth: GatewayAuth): void {
  app.on(['GET', 'POST'], '/api/auth/oauth2/callback/:id', (c) =>
    forward(c, auth, `/api/auth/callback/${encodeURIComponent(c.req.param('id'))}`),
  );
  app.on(['GET', 'POST'], '/api/auth/*', (c) => forward(c, auth));
}

/**
 * Hands the request (or a copy at `path`) to better-auth, with the client address header set
 * by the gateway (a forwarded chain it cannot read is refused: see `clientAddress`). Exported for the CLI pages, which sign in and link accounts through the same
 * handler so the same rate limits and checks apply.
 */
export async function forwardToAuth(
  c: AppContext,
  auth: GatewayAuth,
  request: Request,
): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_IP_HEADER);
  const ip = clientAddress(c, auth.trustedProxies, auth.logger);
  if (ip !== undefined) headers.set(CLIENT_IP_HEADER, ip);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let body: ArrayBuffer | undefined;
  try {
    body = hasBody ? await request.arrayBuffer() : undefined;
  } catch (error) {
    throw bodyReadError(error);
  }
  return withCallbackContext(new URL(request.url), () =>
    auth.handler(new Request(request.url, { method: request.method, headers, body })),
  );
}

async function forward(c: AppContext, auth: GatewayAuth, path?: string): Promise<Response> {
  const url = new URL(c.req.raw.url);
  if (path !== undefined) url.pathname = path;
  const response = await forwardToAuth(c, auth, new Request(url, c.req.raw));
  return toGatewayError(response);
}

/**
 * better-auth answers errors as `{ code, message }` (or plain text); the gateway's contract is
 * `{ error: { code, message, details? } }` on every non-2xx answer. The status follows the
 * gateway's catalogue for the code, better-auth's own code goes into `details.reason`, and
 * headers (cookies, `Retry-After`) are kept. Redirects and successes pass through untouched.
 */
export async function toGatewayError(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const text = await response.text();
  let reason: string | undefined;
  let message: string | undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null) {
      const fields = body as Record<string, unknown>;
      if (typeof fields.code === 'string') reason = fields.code;
      if (typeof fields.message === 'string') message = fields.message;
    }
  } catch {
    if (text.trim() !== '') message = text.trim();
  }
  const code = codeFor(response.status, reason);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  const retryAfter = headers.get('x-retry-after');
  if (retryAfter !== null && !headers.has('retry-after')) headers.set('retry-after', retryAfter);
  const body = {
    error: {
      code,
      // A server error's own message may carry internals; the log has them.
      message: code === 'internal' ? defaultMessage(code) : (message ?? defaultMessage(code)),
      ...(reason === undefined ? {} : { details: { reason } }),
    },
  };
  return new Response(JSON.stringify(body), { status: errorCodes[code], headers });
}

function codeFor(status: number, reason: string | undefined): ErrorCode {
  if (status === 400 && reason === 'VALIDATION_ERROR') return 'validation_failed';
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 409:
    case 422:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    // A provider that cannot be reached when a sign-in starts: its message says so plainly.
    case 503:
      return 'service_unavailable';
    default:
      return status >= 500 ? 'internal' : 'bad_request';
  }
}

function defaultMessage(code: ErrorCode): string {
  switch (code) {
    case 'rate_limited':
      return 'Too many requests; try again later';
    case 'not_found':
      return 'No such sign-in route';
    case 'internal':
      return 'Something went wrong on the server; the error is logged';
    default:
      return 'The sign-in request was refused';
  }
}
