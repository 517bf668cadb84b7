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
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = await reader.read();
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
