/*! Forked from @hono/node-server 2.1.8 (src/listener.ts, src/request.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordBufferedBeforeDisconnect } from './incoming-body.js';
import { abortRequest, adapterRequestClass, NodeRequest, wrapBodyStream } from './request.js';
import { cacheKey, LightResponse } from './response.js';
import { buildUrl, RequestError, requestMethod, validateRequestTarget } from './url.js';
import { installWebGlobals } from './web-globals.js';
import {
  handleResponseError,
  responseViaCache,
  responseViaResponseObject,
} from './write-response.js';

/** What the app is handed with each request: Node's message and response. */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** The app's entry: a request and its bindings in, a response (or its promise) out. */
export type FetchCallback = (
  request: Request,
  env: NodeBindings,
) => Response | Promise<Response> | unknown;

const DRAIN_TIMEOUT_MS = 500;
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const incomingDraining = Symbol('incomingDraining');

type DrainedIncoming = IncomingMessage & {
  [incomingDraining]?: boolean;
  [wrapBodyStream]?: boolean;
};

/**
 * Reads what is left of a body the app did not read, so the connection can serve the next
 * request; gives up (and closes the socket) after 500 ms or 64 MiB.
 */
function drainIncoming(incoming: DrainedIncoming): void {
  if (incoming.destroyed || incoming[incomingDraining]) return;
  incoming[incomingDraining] = true;
  let bytesRead = 0;
  const cleanup = () => {
    clearTimeout(timer);
    incoming.off('data', onData);
    incoming.off('end', cleanup);
    incoming.off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    const { socket } = incoming;
    if (socket && !socket.destroyed) socket.destroySoon();
  };
  const timer = setTimeout(forceClose, DRAIN_TIMEOUT_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytesRead += chunk.length;
    if (bytesRead > MAX_DRAIN_BYTES) forceClose();
  };
  incoming.on('data', onData);
  incoming.on('end', cleanup);
  incoming.on('error', cleanup);
  incoming.resume();
}

/** When Node's response closes: aborts the request's signal if the answer did not finish. */
function closeHandler(
  request: NodeRequest,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  needsBodyCleanup: boolean,
) {
  return () => {
    if (incoming.errored) {
      recordBufferedBeforeDisconnect(incoming);
      request[abortRequest](incoming.errored.toString());
    } else if (!outgoing.writableFinished) {
      recordBufferedBeforeDisconnect(incoming);
      request[abortRequest]('Client connection prematurely closed.');
    }
    if (needsBodyCleanup && !incoming.readableEnded) {
      setTimeout(() => {
        if (!incoming.readableEnded) setTimeout(() => drainIncoming(incoming));
      });
    }
  };
}

/** The adapter's request for `incoming`: its method and URL (from `Host`, else `hostname`). */
function newRequest(incoming: IncomingMessage, hostname?: string): NodeRequest {
  const method = requestMethod(incoming.method);
  const target = incoming.url || '';
  if (target[0] !== '/' && (target.startsWith('http://') || target.startsWith('https://'))) {
    try {
      validateRequestTarget(target);
      return new NodeRequest(incoming, method, new URL(target).href);
    } catch (error) {
      throw new RequestError('Invalid absolute URL', { cause: error });
    }
  }
  const host = incoming.headers.host || hostname;
  if (!host) throw new RequestError('Missing host header');
  const scheme = (incoming.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  try {
    return new NodeRequest(incoming, method, buildUrl(scheme, host, target));
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError('Invalid URL', { cause: error });
  }
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown }).then === 'function';
}

function isLight(value: unknown): value is LightResponse {
  return typeof value === 'object' && value !== null && cacheKey in value;
}

/** A light response whose body is written at once, without waiting for anything. */
function isImmediate(res: unknown): res is LightResponse {
  if (!isLight(res)) return false;
  const body = res[cacheKey]?.[1];
  return body === null || typeof body === 'string' || body instanceof Uint8Array;
}

const requestError = () => new LightResponse(null, { status: 400 });

function fetchError(error: unknown): LightResponse {
  const timeout =
    error instanceof Error &&
    (error.name === 'TimeoutError' || error.constructor.name === 'TimeoutError');
  return new LightResponse(null, { status: timeout ? 504 : 500 });
}

async function writeAnswer(answer: unknown, outgoing: ServerResponse): Promise<void> {
  const res = isPromise(answer) ? await answer.catch(fetchError) : answer;
  if (isLight(res)) return responseViaCache(res, outgoing);
  return responseViaResponseObject(res as Response, outgoing);
}

/**
 * Node's request listener for `fetchCallback`, as `@hono/node-server`'s `getRequestListener`
 * (HTTP/1 only, no error handler of its own): it puts the adapter's `Request` and `Response` in
 * place of the globals, hands each message to the app as a light request, and writes the answer.
 */
export function requestListener(
  fetchCallback: FetchCallback,
  options: { hostname?: string } = {},
): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
  installWebGlobals({ Response: LightResponse, Request: adapterRequestClass });
  return async (incoming: DrainedIncoming, outgoing) => {
    let answer: unknown;
    let request: NodeRequest | undefined;
    let needsBodyCleanup = false;
    let closeHandlerAttached = false;
    const ensureCloseHandler = () => {
      if (!request || closeHandlerAttached) return;
      closeHandlerAttached = true;
      outgoing.on('close', closeHandler(request, incoming, outgoing, needsBodyCleanup));
    };
    try {
      request = newRequest(incoming, options.hostname);
      needsBodyCleanup = !(incoming.method === 'GET' || incoming.method === 'HEAD');
      if (needsBodyCleanup) incoming[wrapBodyStream] = true;
      answer = fetchCallback(request as unknown as Request, { incoming, outgoing });
      if (!isPromise(answer) && isImmediate(answer)) {
        if (needsBodyCleanup && !incoming.readableEnded) {
          outgoing.once('finish', () => {
            if (!incoming.readableEnded) drainIncoming(incoming);
          });
        }
        // Awaited here, so that a head Node refuses takes the error path below (a 500), not an
        // unhandled rejection with the client left waiting.
        return await responseViaCache(answer, outgoing);
      }
      ensureCloseHandler();
    } catch (error) {
      if (answer) return handleResponseError(error, outgoing);
      answer = request ? fetchError(error) : requestError();
    }
    try {
      return await writeAnswer(answer, outgoing);
    } catch (error) {
      return handleResponseError(error, outgoing);
    }
  };
}
