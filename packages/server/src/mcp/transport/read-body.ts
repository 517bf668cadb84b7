import type { IncomingMessage } from 'node:http';
import { bufferedBodyOf, takeBufferedBody } from '../../http/incoming.js';
import { bodyReadError } from '../../http/request-body.js';

/**
 * A request body as text; `tooLarge` when it is over the limit; `notUtf8` when its bytes are not
 * UTF-8, which JSON exchanged between systems must be (RFC 8259 §8.1).
 */
export type ReadBody =
  | { tooLarge: true }
  | { tooLarge: false; text: string }
  | { tooLarge: false; notUtf8: true };

const TOO_LARGE: ReadBody = { tooLarge: true };
const NOT_UTF8: ReadBody = { tooLarge: false, notUtf8: true };
/** Strict: a lenient decoder turns each bad byte into U+FFFD and the body into another one. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the body of an MCP request, refusing one over `maxBytes`, counted in the bytes received
 * (the decoded text is longer when a bad byte becomes U+FFFD). A body with a declared
 * length (`Content-Length`, which the HTTP server holds the client to) is read in one piece with
 * `request.arrayBuffer()`, which the Node adapter serves straight from the socket; only a body
 * without one (chunked) is streamed, and cut off as soon as it passes the limit. Streaming every
 * body cost an MCP call a web stream over the socket and a full `Request` built around it, more
 * than anything else in reading it. Given the request's Node message (`incoming`, from the
 * network), a body already whole in its buffer is taken from there (`takeBufferedBody`) and
 * answered at once, not in a promise (`bufferedBodyOf`: no turn for it on every call, issue 37).
 *
 * @throws HttpError `bad_request` when the client hangs up mid-body (see `bodyReadError`).
 *
 * @example
 * const reading = readBody(request, 1024 * 1024);
 * const read = reading instanceof Promise ? await reading : reading;
 * if (read.tooLarge) return payloadTooLarge();
 */
export function readBody(
  request: Request,
  maxBytes: number,
  incoming?: IncomingMessage,
  /** The response's `afterSent`: the message's stream ends after the answer (`takeBufferedBody`). */
  afterSent?: (work: () => void) => void,
): ReadBody | Promise<ReadBody> {
  let taken = false;
  try {
    const declared = request.headers.get('content-length');
    if (declared !== null) {
      const length = Number(declared);
      if (length > maxBytes) return TOO_LARGE;
      if (incoming !== undefined) taken = takeBufferedBody(incoming, length, afterSent);
      // Exactly `length` bytes, which are at most the limit: answered without a promise.
      const bytes = taken ? bufferedBodyOf(request) : undefined;
      if (bytes !== undefined) return decoded(bytes);
    }
  } catch (error) {
    throw bodyReadError(error);
  }
  return readLater(request, maxBytes).catch((error: unknown) => {
    throw bodyReadError(error);
  });
}

async function readLater(request: Request, maxBytes: number): Promise<ReadBody> {
  const bytes =
    request.headers.get('content-length') === null
      ? await streamUpTo(request, maxBytes)
      : new Uint8Array(await request.arrayBuffer());
  // A Request made in-process may declare less than it carries.
  if (bytes === undefined || bytes.byteLength > maxBytes) return TOO_LARGE;
  return decoded(bytes);
}

/** The body's bytes, read until they pass `maxBytes` (then undefined, the rest left unread). */
async function streamUpTo(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) return undefined;
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

function decoded(bytes: Uint8Array): ReadBody {
  try {
    return { tooLarge: false, text: utf8.decode(bytes) };
  } catch {
    return NOT_UTF8;
  }
}
