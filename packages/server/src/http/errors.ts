import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';

/** The error codes of the HTTP contract, each with its status. */
export const errorCodes = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  misdirected_request: 421,
  conflict: 409,
  // A stored secret no configured auth secret opens: the server's state, not the request, is at
  // fault, yet retrying cannot help until someone acts, so neither a 5xx (nothing failed) nor a
  // 400 (the request is fine); 409, as the resource's state conflicts with reading it.
  secret_unreadable: 409,
  payload_too_large: 413,
  request_header_fields_too_large: 431,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
  // The database is stopped, restarting, unreachable, or (SQLite) locked or read-only: retry.
  database_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * The JSON body of every non-2xx answer, exactly: no other field at either level. Its codes are
 * those of {@link errorCodes}, so the OpenAPI document (generated from this schema) and the tests
 * checking answers against it follow the catalogue.
 */
export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z
          .enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]])
          .meta({ description: 'What went wrong, for programs; it always matches the status' }),
        message: z.string().min(1).meta({ description: 'What went wrong, for people' }),
        details: z.unknown().optional().meta({
          description: 'Zod issues for `validation_failed`; what to fix for some other codes',
        }),
      })
      .strict(),
  })
  .strict()
  .meta({ description: 'The body of every non-2xx answer' });

/** The JSON body of every non-2xx answer. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * An error that becomes an HTTP answer with its code's status and the JSON error body. Messages
 * are written for the caller: they never hold a secret, a token or a stack.
 *
 * @example
 * throw new HttpError('not_found', `No connection ${id}`);
 */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  /** Headers the answer carries (`Retry-After`, `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details?: unknown,
    headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): ContentfulStatusCode {
    return errorCodes[this.code];
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

/** Answers `c` with the error body of `error`, with the error's headers plus any extra ones. */
export function errorResponse(
  c: Context,
  error: HttpError,
  headers?: Record<string, string>,
): Response {
  return c.json(error.toBody(), error.status, { ...error.headers, ...headers });
}
