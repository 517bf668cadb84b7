import type { ReadableStreamReadResult } from 'node:stream/web';
import { type Server, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * `request` with the `MCP-Protocol-Version` the session negotiated at `initialize`. The transport
 * reads the header to decide whether a stream can be resumed (a priming event, closing it
 * mid-call); what a session's client can do was settled when it initialized, and the spec lets a
 * server rely on that version. An unsupported header is left for the transport to refuse.
 */
export function withSessionVersion(request: Request, server: Server): Request {
  const negotiated = server.getNegotiatedProtocolVersion();
  const sent = request.headers.get('mcp-protocol-version');
  if (
    negotiated === undefined ||
    sent === negotiated ||
    (sent !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(sent))
  ) {
    return request;
  }
  const headers = new Headers(request.headers);
  headers.set('mcp-protocol-version', negotiated);
  // The body was read already and travels as `parsedBody`.
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

/** The 2025 revisions (all but 2026-07-28 and later), the versions a session's header may name. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(
  SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < '2026-07-28'),
);

/**
 * Whether `body`, POSTed with `request`, is a plain 2025 JSON-RPC request the SDK's
 * `isLegacyRequest` would call legacy: one object with `jsonrpc`, a string or integer `id`, a
 * `method` and `params` without `_meta` (so no 2026-07-28 envelope claim), and an
 * `MCP-Protocol-Version` header that is absent or names a 2025 revision. What a session's client
 * sends for an ordinary call; decided from the shape alone, where the SDK's check parses the
 * message against several schemas. Anything else (false) goes to the SDK's check.
 */
export function isPlainLegacyRequest(request: Request, body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !LEGACY_VERSIONS.has(version)) return false;
  const message = body as Record<string, unknown>;
  for (const key in message) if (!isRequestKey(key)) return false;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || method === '') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (params === undefined) return true;
  return (
    typeof params === 'object' &&
    params !== null &&
    !Array.isArray(params) &&
    Object.getPrototypeOf(params) === Object.prototype &&
    !('_meta' in params)
  );
}

/**
 * A key of a plain JSON-RPC request: four comparisons, cheaper than a `Set` lookup for the few
 * keys of every session request (issue 37).
 */
function isRequestKey(key: string): boolean {
  return key === 'jsonrpc' || key === 'id' || key === 'method' || key === 'params';
}

/**
 * `response` with `done` called once its body has been sent, or cancelled because the client
 * went away (at once when it has none: a 202 for notifications).
 */
export function whenSent(
  response: Response,
  done: () => void,
  /** Called instead when the client stopped reading (closed the connection) before the end. */
  onCancel?: () => void,
): Response {
  const source = response.body;
  if (source === null) {
    done();
    return response;
  }
  return relayed(response, [], source.getReader(), undefined, done, onCancel);
}

/**
 * How long the event stream answering a session's POST is held back so that, when it ends in
 * that time (an ordinary tool call), it goes out as one body in one write instead of a stream
 * (headers, a priming event, the answer and the end, each written apart). The client reads the
 * same bytes either way; a longer call is streamed from then on, its events held until then
 * sent first.
 */
export const GATHER_MS = 50;

/**
 * {@link whenSent} for the answer to a POST of a 2025 session: an event stream that ends within
 * `gatherMs` is answered as one body with the same bytes (see {@link GATHER_MS}); anything
 * else is streamed as {@link whenSent} does, what was read meanwhile first. `decided` is told,
 * before the answer is returned, whether the stream went out as its lone JSON answer (`true`: the
 * client saw no event id) or with its events (`false`); the answer waits for it.
 */
export async function whenGathered(
  response: Response,
  done: () => void,
  onCancel?: () => void,
  gatherMs = GATHER_MS,
  decided: (alone: boolean) => Promise<void> = async () => {},
): Promise<Response> {
  const source = response.body;
  if (source === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return whenSent(response, done, onCancel);
  }
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), gatherMs);
  });
  try {
    for (;;) {
      const next = reader.read();
      let read: ReadableStreamReadResult<Uint8Array> | undefined;
      try {
        read = await Promise.race([next, expired]);
      } catch {
        // The stream failed: streamed, so its body fails as it did before.
        await decided(false);
        return relayed(response, chunks, reader, next, done, onCancel);
      }
      if (read === undefined) {
        await decided(false);
        return relayed(response, chunks, reader, next, done, onCancel);
      }
      if (read.done) break;
      chunks.push(read.value);
      size += read.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
  }
  done();
  const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
  const answer = loneAnswer(body);
  await decided(answer !== undefined);
  if (answer !== undefined) {
    // The stream held nothing but its answer: sent as the JSON body it is (see loneAnswer),
    // without the stream's own headers (JSON_ANSWER_DROPS), as session-call.ts answers it.
    const headers = new Headers(response.headers);
    headers.set('content-type', 'application/json');
    for (const name of JSON_ANSWER_DROPS) headers.delete(name);
    return new Response(answer, { status: response.status, headers });
  }
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * The headers of the SDK's event stream that a lone JSON answer made from it goes without:
 * `Cache-Control` (a POST's answer without freshness information is never stored, RFC 9111
 * section 3, so `no-cache` keeps nothing from being cached; a stream carries it for proxies),
 * `X-Accel-Buffering` (a proxy's buffering of a stream) and `Connection` (Node's own then, as
 * for every other answer). Each costs the client a header to read on every call (issue 37).
 */
const JSON_ANSWER_DROPS = ['cache-control', 'x-accel-buffering', 'connection'] as const;

/**
 * The JSON-RPC answer `stream` (a whole event stream) carries, when that is all it carries: its
 * events are the priming event (an id and no data) and one message that answers a request. The
 * 2025 transport lets the server answer a POST with either an event stream or that one JSON
 * message, and every client accepts both (it must send `Accept: application/json,
 * text/event-stream`, which the SDK's transport checks); the JSON body costs a client a JSON parse
 * instead of a text decoder and an event parser. Undefined when the stream carries anything
 * else (a notification, a question, several messages): it is sent as it came.
 */
function loneAnswer(stream: Uint8Array): string | undefined {
  const text = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength).toString('utf8');
  let data: string | undefined;
  for (const event of text.split('\n\n')) {
    for (const line of event.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const value = line.slice(line.startsWith('data: ') ? 6 : 5);
      if (value === '') continue;
      // A second message, or a message on several data lines: not one plain answer.
      if (data !== undefined) return undefined;
      data = value;
    }
  }
  if (data === undefined) return undefined;
  try {
    const message: unknown = JSON.parse(data);
    if (
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message) ||
      'method' in message ||
      !('id' in message) ||
      !('result' in message || 'error' in message)
    ) {
      return undefined;
    }
  } catch {
    return undefined;
  }
  return data;
}

/**
 * A response whose body is `chunks`, then the read `pending` (when given), then the rest of
 * `reader`; `done` once it ended or failed, `onCancel` when the client went away before.
 */
function relayed(
  response: Response,
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined,
  done: () => void,
  onCancel: (() => void) | undefined,
): Response {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  let first = pending;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const held = chunks.shift();
        if (held !== undefined) {
          controller.enqueue(held);
          return;
        }
        try {
          const chunk = await (first ?? reader.read());
          first = undefined;
          if (chunk.done) {
            finish();
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel(reason) {
        if (!finished) onCancel?.();
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** HTTP 429 with a JSON-RPC error answering the `initialize` in `body`. */
export function tooManySessions(body: unknown, message: string): Response {
  const id =
    typeof body === 'object' &&
    body !== null &&
    'id' in body &&
    (typeof body.id === 'string' || typeof body.id === 'number')
      ? body.id
      : null;
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id }, { status: 429 });
}

/**
 * HTTP 429 for a principal at its per-user session cap whose sessions all have a request in
 * flight: how many it holds (`onThisServer`: counted on this instance only) and what to do.
 */
export function sessionCapReached(
  body: unknown,
  held: number,
  maxPerUser: number,
  onThisServer: boolean,
): Response {
  return tooManySessions(
    body,
    `Too many MCP sessions: you hold ${held}${onThisServer ? ' on this server' : ''}, the most one user may hold is ${maxPerUser}, and each has a request in flight. Close sessions you no longer use (quit idle clients), or retry when a call finishes.`,
  );
}

/** HTTP 404 with a JSON-RPC error: the `Mcp-Session-Id` names no session (the client starts anew). */
export function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}

/**
 * The `initialize` request a session was opened with, replayed on another instance to rebuild the
 * session there in the state the client left it (see `LegacySessions`).
 */
export function replayedInitialize(
  url: string,
  params: Record<string, unknown>,
): { request: Request; body: unknown } {
  const body = { jsonrpc: '2.0' as const, id: 'gateway-restore', method: 'initialize', params };
  const request = new Request(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
  });
  return { request, body };
}

/** The params of the `initialize` request `body` (checked by `LegacySessions.claims`). */
export function initializeParams(body: unknown): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && 'params' in body) {
    const { params } = body;
    if (typeof params === 'object' && params !== null) return { ...params };
  }
  return {};
}
