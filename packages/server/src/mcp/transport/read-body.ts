import type { IncomingMessage } from 'node:http';
import { readRequestBody } from '@modelcontextprotocol/server';
import { takeBufferedBody } from '../../http/incoming.js';
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
 * body already whole in its buffer is taken from there (`takeBufferedBody`).
 *
 * @throws HttpError `bad_request` when the client hangs up mid-body (see `bodyReadError`).
 *
 * @example
 * const read = await readBody(request, 1024 * 1024);
 * if (read.tooLarge) return payloadTooLarge();
 */
export async function readBody(
  request: Request,
  maxBytes: number,
  incoming?: IncomingMessage,
  /** The response's `afterSent`: the message's stream ends after the answer (`takeBufferedBody`). */
  afterSent?: (work: () => void) => void,
): Promise<ReadBody> {
  try {
    return await read(request, maxBytes, incoming, afterSent);
  } catch (error) {
    throw bodyReadError(error);
  }
}

async function read(
  request: Request,
  maxBytes: number,
  incoming: IncomingMessage | undefined,
  afterSent: ((work: () => void) => void) | undefined,
): Promise<ReadBody> {
  const declared = request.headers.get('content-length');
  if (declared === null) return readRequestBody(request, maxBytes);
  const length = Number(declared);
  if (length > maxBytes) return { tooLarge: true };
  if (incoming !== undefined) takeBufferedBody(incoming, length, afterSent);
  const text = await request.text();
  // A Request made in-process may declare less than it carries.
  if (Buffer.byteLength(text) > maxBytes) return { tooLarge: true };
  return { tooLarge: false, text };
}
