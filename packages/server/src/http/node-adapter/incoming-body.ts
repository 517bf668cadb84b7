/*! Forked from @hono/node-server 2.1.8 (src/request.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */
import type { IncomingMessage } from 'node:http';

/** Node's message as the adapter marks it: what it knew of the body when the client left. */
type MarkedIncoming = IncomingMessage & {
  [takenBody]?: Buffer;
  [bodyBufferedBefore]?: Buffer | Error;
  [bodyBufferedLengthBefore]?: number;
  rawBody?: unknown;
};

const bodyBufferedBefore = Symbol('bodyBufferedBeforeDisconnect');
const bodyBufferedLengthBefore = Symbol('bodyBufferedLengthBeforeDisconnect');
const BYTE_EXACT_ENCODINGS = new Set(['latin1', 'binary', 'hex', 'base64', 'base64url']);

/** The `TypeError` a body read twice, or after it was locked, fails with. */
export function bodyUnusable(): TypeError {
  return new TypeError('Body is unusable');
}

/** The body the app took whole from the message's buffer ({@link keepTakenBody}). */
const takenBody = Symbol('takenBody');

/**
 * The body read before the adapter's own read: the one the app took whole from the message's
 * buffer ({@link keepTakenBody}), else one a platform read before the app ran
 * (`incoming.rawBody`), if it is a buffer.
 */
export function rawBodyOf(incoming: IncomingMessage): Buffer | undefined {
  const marked = incoming as MarkedIncoming;
  const taken = marked[takenBody];
  if (taken !== undefined) return taken;
  const { rawBody } = marked;
  return rawBody instanceof Buffer ? rawBody : undefined;
}

/**
 * Keeps `body`, read whole from `incoming`'s buffer by the app, as the message's body: the
 * adapter serves it as it serves a platform's `rawBody` ({@link rawBodyOf}). A property of its own
 * symbol, set as any field is: `Object.defineProperty(incoming, 'rawBody', …)` cost every MCP
 * request ~1.9 k instructions in V8's runtime (issue 37).
 */
export function keepTakenBody(incoming: IncomingMessage, body: Buffer): void {
  (incoming as MarkedIncoming)[takenBody] = body;
}

/** Whether the message has a body read before the adapter's own read ({@link rawBodyOf}). */
export function hasRawBody(incoming: IncomingMessage): boolean {
  return (incoming as MarkedIncoming)[takenBody] !== undefined || 'rawBody' in incoming;
}

function toBuffer(chunk: unknown, encoding: BufferEncoding | null): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding ?? 'utf8');
}

/**
 * Whether the whole body of a message whose client left could still be in its buffer: the
 * parser had marked it complete and its bytes are read back exactly.
 */
export function isRecoverable(incoming: IncomingMessage): boolean {
  const encoding = incoming.readableEncoding;
  return (
    incoming.complete &&
    incoming.readableAborted &&
    typeof incoming.read === 'function' &&
    (encoding === null || BYTE_EXACT_ENCODINGS.has(encoding))
  );
}

/** Notes how much body was buffered when the client left, so a later read can check it. */
export function recordBufferedBeforeDisconnect(incoming: IncomingMessage): void {
  if (incoming.readableDidRead || !isRecoverable(incoming)) return;
  (incoming as MarkedIncoming)[bodyBufferedLengthBefore] ??= incoming.readableLength;
}

/**
 * The body a client sent whole before it left, from the message's buffer (with `chunks` already
 * read); an error when it is not whole; undefined when the message is not such a one.
 */
export function bufferedBeforeDisconnect(
  incoming: IncomingMessage,
  chunks?: Buffer[],
): Buffer | Error | undefined {
  if ((incoming.readableDidRead && !chunks) || !isRecoverable(incoming)) return undefined;
  const marked = incoming as MarkedIncoming;
  if (marked[bodyBufferedBefore] !== undefined) return marked[bodyBufferedBefore];
  let result: Buffer | Error;
  const errored = incoming.errored as NodeJS.ErrnoException | null;
  const recordedLength = marked[bodyBufferedLengthBefore];
  if (errored && errored.code !== 'ECONNRESET') result = errored;
  else if (recordedLength !== undefined && incoming.readableLength !== recordedLength) {
    result = bodyUnusable();
  } else {
    result = wholeBuffer(incoming, chunks ?? []);
  }
  marked[bodyBufferedBefore] = result;
  return result;
}

/** What is left in `incoming`'s buffer after `chunks`; an error if short of its Content-Length. */
function wholeBuffer(incoming: IncomingMessage, chunks: Buffer[]): Buffer | Error {
  const chunk: unknown = incoming.read();
  if (chunk !== null) chunks.push(toBuffer(chunk, incoming.readableEncoding));
  const buffer = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  const contentLength = incoming.headers['content-length'];
  if (typeof contentLength === 'string' && /^\d+$/.test(contentLength)) {
    const expected = Number(contentLength);
    if (Number.isSafeInteger(expected) && buffer.length !== expected) return bodyUnusable();
  }
  return buffer;
}

/**
 * Reads `incoming`'s whole body from its events. A client that leaves after sending all of it
 * still has it served from the buffer; otherwise the read fails with the stream's error or
 * `abortError()`.
 */
export function readIncomingBody(
  incoming: IncomingMessage,
  abortError: () => Error,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (callback: () => void) => {
      if (settled) return;
      settled = true;
      cleanup();
      callback();
    };
    const recoverAfterDisconnect = (error?: Error): boolean => {
      const streamError = (incoming.errored ?? error) as NodeJS.ErrnoException | undefined;
      if (!isRecoverable(incoming) || (streamError && streamError.code !== 'ECONNRESET')) {
        return false;
      }
      finish(() => {
        const recovered = bufferedBeforeDisconnect(incoming, chunks);
        if (recovered instanceof Error) reject(recovered);
        else if (recovered === undefined) reject(error ?? abortError());
        else resolve(recovered);
      });
      return true;
    };
    const onData = (chunk: unknown) => {
      chunks.push(toBuffer(chunk, incoming.readableEncoding));
    };
    const onEnd = () => {
      finish(() => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    };
    const onError = (error: Error) => {
      if (recoverAfterDisconnect(error)) return;
      finish(() => reject(error));
    };
    const onClose = () => {
      if (incoming.readableEnded) {
        onEnd();
        return;
      }
      if (recoverAfterDisconnect()) return;
      finish(() => reject(abortError()));
    };
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    queueMicrotask(() => {
      if (settled) return;
      if (incoming.readableEnded) onEnd();
      else if (incoming.errored) onError(incoming.errored);
      else if (incoming.destroyed) onClose();
    });
  });
}
