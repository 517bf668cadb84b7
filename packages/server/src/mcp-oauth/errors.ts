import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { HttpError } from '../http/errors.js';
import type { ServerLogger } from '../http/logger.js';
import { httpErrorOf } from '../http/route.js';

/** The error codes of RFC 6749, 7009, 7591 and 8707 that Gateway's authorization server answers. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An OAuth error, answered in RFC 6749's shape (`{ "error", "error_description" }`), never the
 * gateway's `{ "error": { "code" } }`: OAuth clients parse only the former.
 *
 * @example
 * throw new OAuthError('invalid_grant', 'The code was already used');
 */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
    readonly status: ContentfulStatusCode = code === 'invalid_client' ? 401 : 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The JSON answer of an OAuth error; never cached. */
export function oauthErrorResponse(c: Context, error: OAuthError): Response {
  return c.json({ error: error.code, error_description: error.message }, error.status, {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...error.headers,
  });
}

/** The gateway's own errors (a body too large or cut off, a rate limit) in OAuth's shape. */
function asOAuthError(error: HttpError): OAuthError {
  if (error.code === 'rate_limited') {
    return new OAuthError('temporarily_unavailable', error.message, 429, error.headers);
  }
  if (error.status >= 500) return new OAuthError('server_error', error.message, error.status);
  return new OAuthError('invalid_request', error.message, error.status, error.headers);
}

/**
 * Wraps an OAuth endpoint's handler so every failure answers in RFC 6749's shape: its own
 * {@link OAuthError}s, the gateway's `HttpError`s and services' refusals, and anything unexpected (logged, answered as
 * `server_error` without detail).
 */
export function oauthEndpoint(
  logger: ServerLogger,
  handler: (c: Context) => Promise<Response>,
): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      if (error instanceof OAuthError) return oauthErrorResponse(c, error);
      const refused = httpErrorOf(error);
      if (refused !== undefined) return oauthErrorResponse(c, asOAuthError(refused));
      logger.error('OAuth endpoint failed', {
        route: c.req.path,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return oauthErrorResponse(
        c,
        new OAuthError(
          'server_error',
          'Something went wrong on the server; the error is logged',
          500,
        ),
      );
    }
  };
}
