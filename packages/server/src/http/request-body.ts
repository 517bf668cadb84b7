import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from './errors.js';

/**
 * Undici's and the node adapter's words for a body read twice or while locked: a bug on this
 * side, which stays a 500.
 */
const BODY_ALREADY_USED = /unusable|already been (read|used)|disturbed|locked/i;

/**
 * What an error thrown while reading a request's body means for the answer. Reading a body only
 * fails when the client stops sending it (it hung up or reset the connection mid-body: `aborted`,
 * `ECONNRESET`, `terminated`, a premature close), so the failure becomes a 400 `bad_request`
 * rather than the 500 of an unhandled error. An {@link HttpError} (a size limit enforced while
 * streaming) passes through as it is, and so does a body used twice, which is the server's bug.
 *
 * @example
 * try {
 *   text = await request.text();
 * } catch (error) {
 *   throw bodyReadError(error);
 * }
 */
export function bodyReadError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  if (error instanceof TypeError && BODY_ALREADY_USED.test(error.message)) return error;
  return new HttpError('bad_request', 'The request body was cut off before its end');
}

/** Strict: a lenient decoder turns each bad byte into U+FFFD and the body into another one. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body of `c` as text (its bytes kept by Hono, so it can be read again). The bytes
 * must be UTF-8, as JSON exchanged between systems must be (RFC 8259 §8.1) and forms are: a bad
 * byte is refused, not read as U+FFFD. A client that hangs up mid-body gets a 400
 * instead of an unhandled 500 (see {@link bodyReadError}).
 *
 * @throws HttpError `bad_request` when the body was cut off or is not UTF-8.
 * @example
 * const form = new URLSearchParams(await readBodyText(c));
 */
export async function readBodyText(c: Context): Promise<string> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch (error) {
    throw bodyReadError(error);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError('bad_request', 'The request body is not valid UTF-8');
  }
}

/**
 * Hono's `bodyLimit`, with a client that hangs up mid-body answered as a 400 (see
 * {@link bodyReadError}). A body without a declared length is read whole here, before the
 * handler, so a hang-up surfaces here and not in the handler's own read.
 *
 * @example
 * app.use('/api/*', limitBody({ maxSize: 1024 * 1024, onError: (c) => tooLarge(c) }));
 */
export function limitBody(options: Parameters<typeof bodyLimit>[0]): MiddlewareHandler {
  const limit = bodyLimit(options);
  return async (c, next) => {
    let reading = true;
    try {
      return await limit(c, () => {
        reading = false;
        return next();
      });
    } catch (error) {
      throw reading ? bodyReadError(error) : error;
    }
  };
}
