/*! Forked from @hono/node-server 2.1.8 (src/listener.ts, src/utils.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { cacheKey, DEFAULT_CONTENT_TYPE, type LightResponse, type PlainBody } from './response.js';
import { type HeadersInit, isHeaders, type ReadResult } from './web-globals.js';

/** `@hono/node-server`'s mark of an answer its handler already wrote to Node's response. */
const X_ALREADY_SENT = 'x-hono-already-sent';

type Outgoing = ServerResponse;

/** Node's response's internals the length shortcut reads (`_contentLength` is set by it). */
interface Http1Internals {
  _contentLength: number | null;
  _hasBody: boolean;
  useChunkedEncodingByDefault: boolean;
  _removedContLen: boolean;
}

/** Sends the head now, before a streamed body's first chunk. */
export function flushHeaders(outgoing: ServerResponse): void {
  if ('flushHeaders' in outgoing && outgoing.writable) outgoing.flushHeaders();
}

/** Resolves to the read if it has settled by the next turns of the microtask queue, else undefined. */
function readWithoutBlocking<T>(read: Promise<T>): Promise<T | undefined> {
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(undefined))]);
}

/** Copies `reader`'s stream to `writable`, respecting back-pressure; cancels it if `writable` closes. */
function writeFromReader(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  writable: ServerResponse,
  currentRead?: Promise<ReadResult>,
): Promise<void> {
  const cancel = (error?: unknown) => {
    reader.cancel(error).catch(() => {});
  };
  if (writable.destroyed) {
    cancel();
    return reader.closed;
  }
  writable.on('close', cancel);
  writable.on('error', cancel);
  const handleStreamError = (error: unknown) => {
    if (error) writable.destroy(error as Error);
  };
  const onDrain = () => {
    reader.read().then(flow, handleStreamError);
  };
  function flow({ done, value }: ReadResult): void {
    try {
      if (done) writable.end();
      else if (!writable.write(value)) writable.once('drain', onDrain);
      else reader.read().then(flow, handleStreamError);
    } catch (error) {
      handleStreamError(error);
    }
  }
  (currentRead ?? reader.read()).then(flow, handleStreamError);
  return reader.closed.finally(() => {
    writable.off('close', cancel);
    writable.off('error', cancel);
  });
}

function writeFromStream(
  stream: ReadableStream<Uint8Array>,
  writable: ServerResponse,
): Promise<void> | undefined {
  if (stream.locked) throw new TypeError('ReadableStream is locked.');
  if (writable.destroyed) {
    stream.cancel().catch(() => {});
    return undefined;
  }
  return writeFromReader(stream.getReader(), writable);
}

/** A response's headers as Node's record, `set-cookie` as a list; the default type for a body. */
function outgoingHeaders(headers: HeadersInit | null | undefined, contentType?: string) {
  const record: OutgoingHttpHeaders = {};
  const all = isHeaders(headers) ? headers : new Headers(headers ?? undefined);
  if (all.has('set-cookie')) {
    const cookies: string[] = [];
    for (const [name, value] of all) {
      if (name === 'set-cookie') cookies.push(value);
      else record[name] = value;
    }
    if (cookies.length > 0) record['set-cookie'] = cookies;
  } else {
    for (const [name, value] of all) record[name] = value;
  }
  if (contentType) record['content-type'] ??= contentType;
  return record;
}

/**
 * An answer that failed while being written: logged, and a 500 if its head has not gone out; a
 * client that left (`ERR_STREAM_PREMATURE_CLOSE`) is only noted.
 */
export function handleResponseError(error: unknown, outgoing: ServerResponse): void {
  const err = error instanceof Error ? error : new Error('unknown error', { cause: error });
  if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
    console.info('The user aborted a request.');
    return;
  }
  console.error(error);
  if (!outgoing.headersSent) {
    (outgoing as unknown as Http1Internals)._contentLength = null;
    outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
  }
  outgoing.end(`Error: ${err.message}`);
  outgoing.destroy(err);
}

/** Lets Node write `Content-Length` itself, without a header of the answer's, where it can. */
function trySetContentLength(outgoing: ServerResponse, status: number, length: number): boolean {
  const http1 = outgoing as unknown as Http1Internals;
  if (
    http1._contentLength === null &&
    http1._hasBody &&
    http1.useChunkedEncodingByDefault &&
    !http1._removedContLen &&
    status >= 200 &&
    status !== 204 &&
    status !== 304 &&
    !outgoing.hasHeader('content-length') &&
    !outgoing.hasHeader('transfer-encoding') &&
    !outgoing.hasHeader('trailer')
  ) {
    http1._contentLength = length;
    return true;
  }
  return false;
}

function writeDefaultHeaders(outgoing: ServerResponse, status: number, length: number): void {
  if (trySetContentLength(outgoing, status, length)) {
    outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE });
  } else {
    outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE, 'Content-Length': length });
  }
}

function byteLength(body: PlainBody): number | undefined {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof Blob) return body.size;
  return undefined;
}

async function writeBody(body: PlainBody, outgoing: ServerResponse): Promise<void> {
  if (body == null) outgoing.end();
  else if (typeof body === 'string' || body instanceof Uint8Array) outgoing.end(body);
  else if (body instanceof Blob) outgoing.end(new Uint8Array(await body.arrayBuffer()));
  else {
    flushHeaders(outgoing);
    await writeFromStream(body, outgoing)?.catch((error: unknown) => {
      handleResponseError(error, outgoing);
    });
  }
}

/** Writes an answer without headers of its own: the default type and its length. */
async function writeWithoutHeaders(status: number, body: PlainBody, outgoing: Outgoing) {
  const length = byteLength(body);
  if (body === null) outgoing.writeHead(status);
  else if (length !== undefined) writeDefaultHeaders(outgoing, status, length);
  else outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE });
  await writeBody(body, outgoing);
}

/**
 * Writes one of the adapter's light responses as given: a header record goes to `writeHead` as
 * it is (with the body's length, which Node writes itself where it can); only a `Headers` or a
 * list is turned into one.
 */
export async function responseViaCache(res: LightResponse, outgoing: Outgoing): Promise<void> {
  const [status, body, given] = res[cacheKey] as NonNullable<LightResponse[typeof cacheKey]>;
  if (!given) {
    await writeWithoutHeaders(status, body, outgoing);
    return;
  }
  let header: OutgoingHttpHeaders;
  let hasContentLength = false;
  let plainHeaders = false;
  let canAutoLength = true;
  if (isHeaders(given) || Array.isArray(given)) {
    const all = isHeaders(given) ? given : new Headers(given);
    hasContentLength = all.has('content-length');
    header = outgoingHeaders(all, body === null ? undefined : DEFAULT_CONTENT_TYPE);
  } else {
    plainHeaders = true;
    header = given as OutgoingHttpHeaders;
    for (const key in header) {
      if (key.length === 14 && key.toLowerCase() === 'content-length') {
        hasContentLength = true;
        break;
      }
      if (
        (key.length === 17 && key.toLowerCase() === 'transfer-encoding') ||
        (key.length === 7 && key.toLowerCase() === 'trailer')
      ) {
        canAutoLength = false;
      }
    }
  }
  const length = hasContentLength ? undefined : byteLength(body);
  if (
    length !== undefined &&
    (!plainHeaders || !canAutoLength || !trySetContentLength(outgoing, status, length))
  ) {
    if (plainHeaders) header = { ...header };
    header['Content-Length'] = length;
  }
  outgoing.writeHead(status, header);
  await writeBody(body, outgoing);
}

/** Writes any other `Response`: its head once its first chunks are known, then its stream. */
export async function responseViaResponseObject(res: Response, outgoing: Outgoing): Promise<void> {
  const record = outgoingHeaders(res.headers, res.body === null ? undefined : DEFAULT_CONTENT_TYPE);
  if (res.body) {
    await writeStreamedResponse(res.status, res.body.getReader(), record, outgoing);
  } else if (record[X_ALREADY_SENT]) {
    // Its handler wrote it to Node's response itself.
  } else {
    outgoing.writeHead(res.status, record);
    outgoing.end();
  }
}

/**
 * Reads up to the first chunks a stream has ready (so a short body goes out with its length in
 * one write), writes the head, then the rest as it comes.
 */
async function writeStreamedResponse(
  status: number,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  record: OutgoingHttpHeaders,
  outgoing: Outgoing,
): Promise<void> {
  const values: Uint8Array[] = [];
  let done = false;
  let currentRead: Promise<ReadResult> | undefined;
  if (record['transfer-encoding'] !== 'chunked') {
    let maxReadCount = 2;
    for (let i = 0; i < maxReadCount; i++) {
      currentRead ??= reader.read();
      const chunk = await readWithoutBlocking(currentRead);
      if (!chunk) {
        if (i === 1) {
          await new Promise((resolve) => setTimeout(resolve));
          maxReadCount = 3;
          continue;
        }
        break;
      }
      currentRead = undefined;
      if (chunk.value) values.push(chunk.value);
      if (chunk.done) {
        done = true;
        break;
      }
    }
    if (done && !('content-length' in record)) {
      record['content-length'] = values.reduce((sum, value) => sum + value.length, 0);
    }
  }
  outgoing.writeHead(status, record);
  for (const value of values) outgoing.write(value);
  if (done) {
    outgoing.end();
    return;
  }
  if (values.length === 0) flushHeaders(outgoing);
  await writeFromReader(reader, outgoing, currentRead);
}
