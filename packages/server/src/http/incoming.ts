import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { hasRawBody, keepTakenBody } from './node-adapter/incoming-body.js';
import { bufferedBody, NodeRequest } from './node-adapter/request.js';

/**
 * Node's message of a request from the network (the node adapter binds it as `incoming`),
 * undefined for one handed over in process (`gateway.fetch()`) or over HTTP/2.
 *
 * @example
 * const incoming = incomingOf(c);
 * if (incoming !== undefined) takeBufferedBody(incoming, length);
 */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  return env.incoming instanceof IncomingMessage ? env.incoming : undefined;
}

/**
 * Hands a request body that already sits whole in `incoming`'s buffer to the Node adapter, so
 * that the request's `text()` answers it at once: one synchronous `read()`, where the adapter's
 * own read listens to the stream (`data`, `end`, `error`, `close`) and waits for its events
 * (bench/mcp/README.md). A small request arrives in one read of the socket: by the time a route
 * has awaited anything, Node's parser has pushed all of its body (all `length` bytes of its
 * `Content-Length`, which the parser holds the client to), though it may not have marked the
 * message complete yet. The adapter serves the buffer taken (`keepTakenBody`), as it serves a
 * platform's `rawBody` read before the app runs, as the body, and marks it used as after any
 * read. The stream is then set flowing, as the adapter's read leaves it, so that it ends when the
 * parser marks the message complete: the adapter drains a message that has not ended when its
 * answer is done. Given `afterSent` (the response's, `GatewayResponse.afterSent`), it is
 * set flowing once the answer has gone out: the stream's end (its `end` event, its destruction
 * and the parser's end of message meeting a flowing stream, ~20-30 k instructions) then runs
 * while the client reads the answer, not before it (issue 37). Anything else (part of it read or
 * flowing, fewer or more bytes buffered than `length`) is left for the adapter's own read: false.
 *
 * @example
 * takeBufferedBody(incoming, Number(contentLength), (work) => outgoing.afterSent(work));
 * const text = await request.text();
 */
export function takeBufferedBody(
  incoming: IncomingMessage,
  length: number,
  afterSent?: (work: () => void) => void,
): boolean {
  if (
    length === 0 ||
    incoming.readableDidRead ||
    incoming.readableFlowing === true ||
    incoming.readableEncoding !== null ||
    incoming.readableLength !== length ||
    hasRawBody(incoming)
  ) {
    return false;
  }
  const body: unknown = incoming.read();
  if (!Buffer.isBuffer(body)) return false;
  keepTakenBody(incoming, body);
  if (afterSent === undefined) {
    if (!incoming.complete) incoming.resume();
  } else {
    afterSent(() => {
      if (incoming.readableEnded) return;
      if (incoming.complete) incoming.read();
      else incoming.resume();
    });
  }
  return true;
}

/**
 * The body of `request` as bytes, at once, when the Node adapter holds it whole (a POST from the
 * network whose body {@link takeBufferedBody} took), marking it read as `arrayBuffer()` would;
 * else undefined, nothing read. `arrayBuffer()` answers the same in a promise, which costs the
 * MCP endpoint's every call an async read and its turn (issue 37). Bytes, not text: the caller
 * counts and decodes them (the MCP endpoint refuses a body that is not UTF-8).
 *
 * @example
 * if (takeBufferedBody(incoming, length)) bytes = bufferedBodyOf(request);
 */
export function bufferedBodyOf(request: Request): Buffer | undefined {
  const given: unknown = request;
  return given instanceof NodeRequest ? given[bufferedBody]() : undefined;
}
