import type { McpPrincipal } from '../../principal.js';
import { GATHER_MS, whenGathered, whenSent, withSessionVersion } from '../session-http.js';
import type { Session } from './session.js';

/**
 * A session's POST, found open and owned by the requester, offered to be answered without the
 * session's transport (`LegacySessionsOptions.answerDirectly`).
 */
export interface SessionPost {
  request: Request;
  body: unknown;
  /** Whether it is a plain 2025 request (`isPlainLegacyRequest`), as the endpoint found. */
  plain: boolean;
  /** Whom `authenticate()` found for this very request. */
  principal: McpPrincipal;
  /**
   * Serves the POST through the session's transport after all, as it is served otherwise
   * ({@link serveSessionRequest}); `serving` is also told the request the transport is given,
   * and an answer ready within `gatherMs` goes out as one body (default {@link GATHER_MS}).
   */
  viaTransport(serving?: (request: Request) => void, gatherMs?: number): Promise<Response>;
}

/** Where a GET may resume the stream of a tool call another instance runs (PostgreSQL). */
export interface StreamFollower {
  /** The followed stream, or undefined when `session`'s own transport answers `request`. */
  follow(sessionId: string, request: Request): Promise<Response | undefined>;
}

/**
 * Serves `request` (GET, POST or DELETE) of `session`, which the caller found open and owned by
 * the requester. A POST counts as in flight until its answer has been sent, a GET stream as
 * listening until it ends (what the caps and the idle sweep look at). `options` carries the body
 * read already. Rejects when the session's transport or `follower` does.
 */
export async function serveSessionRequest(
  session: Session,
  request: Request,
  options: { parsedBody?: unknown },
  follower: StreamFollower | undefined,
  /** Told the request the session's transport is given (what its handlers see as `ctx.http.req`). */
  serving?: (request: Request) => void,
  /** How long an answer is waited for to go out as one body (see `whenGathered`). */
  gatherMs = GATHER_MS,
): Promise<Response> {
  const versioned = withSessionVersion(request, session.server);
  serving?.(versioned);
  if (request.method === 'GET') {
    if (request.headers.has('last-event-id')) session.resumedAt = Date.now();
    // Resuming the stream of a call another instance runs: followed in the database.
    const followed = await follower?.follow(session.id, request);
    if (followed !== undefined) return followed;
    return listened(session, await session.transport.handleRequest(versioned, options));
  }
  // A DELETE is no request of the client's own to count.
  if (request.method !== 'POST') return session.transport.handleRequest(versioned, options);
  return tracked(
    session,
    () => session.transport.handleRequest(versioned, options),
    requestIdsOf(options.parsedBody),
    gatherMs,
  );
}

/**
 * How long after a client closed a call's stream it has to take it up again (a GET with
 * `Last-Event-ID`) before its calls are cancelled, as if it had sent `notifications/cancelled`.
 */
export const ABANDONED_STREAM_GRACE_MS = 3000;

/**
 * Runs one POST of `session`, which counts as busy until its answer has been sent. A client that
 * closes the stream before its answer and does not resume it within
 * {@link ABANDONED_STREAM_GRACE_MS} is gone: its requests are cancelled, so nothing it started
 * (a pending approval above all) can run after it left.
 */
async function tracked(
  session: Session,
  run: () => Promise<Response>,
  requestIds: readonly (string | number)[],
  gatherMs: number,
): Promise<Response> {
  session.inFlight += 1;
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    session.inFlight -= 1;
    throw error;
  }
  const abandoned =
    requestIds.length === 0
      ? undefined
      : () => {
          const closedAt = Date.now();
          const timer = setTimeout(() => {
            if ((session.resumedAt ?? 0) >= closedAt) return;
            for (const requestId of requestIds) {
              session.transport.onmessage?.({
                jsonrpc: '2.0',
                method: 'notifications/cancelled',
                params: { requestId, reason: 'The client closed the connection' },
              });
            }
          }, ABANDONED_STREAM_GRACE_MS);
          timer.unref();
        };
  // An answer that is ready within a few milliseconds goes out as one body (whenGathered).
  const events = session.events;
  return whenGathered(
    response,
    () => {
      session.inFlight -= 1;
    },
    abandoned,
    gatherMs,
    events === undefined
      ? undefined
      : async (alone) => {
          if (alone) events.answeredAlone(requestIds);
          // The client may resume from the ids it is shown: stored before it sees them. When the
          // database fails, the answer still goes out; only resuming it would fail.
          else await events.shown().catch(() => {});
        },
  );
}

/** The ids of the requests (not notifications or answers) in a POST's JSON-RPC body. */
function requestIdsOf(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message: unknown) => {
    if (typeof message !== 'object' || message === null) return [];
    const { id, method } = message as { id?: unknown; method?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : [];
  });
}

/** `response` to a GET, counting its stream as listening until it ends. */
function listened(session: Session, response: Response): Response {
  if (response.status !== 200 || response.body === null) return response;
  session.listening += 1;
  return whenSent(response, () => {
    session.listening -= 1;
  });
}
