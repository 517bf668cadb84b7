import type { IncomingMessage } from 'node:http';
import { readRequestBody } from '@modelcontextprotocol/server';
import { bufferedTextOf, takeBufferedBody } from '../../http/incoming.js';
import { bodyReadError } from '../../http/request-body.js';

/** A request body as text, or `tooLarge` when it is over the limit. */
export type ReadBody = { tooLarge: true } | { tooLarge: false; text: string };

/**
 * Reads the body of an MCP request, refusing one over `maxBytes`. A body with a declared length
 * (`Content-Length`, which the HTTP server holds the client to) is read in one piece with
 * `request.text()`, which the Node adapter serves straight from the socket; only a body without
 * one (chunked) is streamed, and cut off as soon as it passes the limit. Streaming every body cost
 * an MCP call a web stream over the socket and a full `Request` built around it, more than
 * anything else in reading it. Given the request's Node message (`incoming`, from the network), a
 * body already whole in its buffer is taken from there (`takeBufferedBody`) and answered at once,
 * not in a promise (`bufferedTextOf`: no turn for it on every call, issue 37).
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
      if (length > maxBytes) return { tooLarge: true };
      if (incoming !== undefined) taken = takeBufferedBody(incoming, length, afterSent);
      // Exactly `length` bytes, which are at most the limit: answered without a promise.
      const text = taken ? bufferedTextOf(request) : undefined;
      if (text !== undefined) return { tooLarge: false, text };
    }
  } catch (error) {
    throw bodyReadError(error);
  }
  return readLater(request, maxBytes).catch((error: unknown) => {
    throw bodyReadError(error);
  });
}

async function readLater(request: Request, maxBytes: number): Promise<ReadBody> {
  if (request.headers.get('content-length') === null) return readRequestBody(request, maxBytes);
  const text = await request.text();
  // A Request made in-process may declare less than it carries.
  if (Buffer.byteLength(text) > maxBytes) return { tooLarge: true };
  return { tooLarge: false, text };
}
