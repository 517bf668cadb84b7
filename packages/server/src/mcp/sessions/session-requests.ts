import { whenSent, withSessionVersion } from '../session-http.js';
import type { Session } from './session.js';

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
): Promise<Response> {
  const versioned = withSessionVersion(request, session.server);
  if (request.method === 'GET') {
    // Resuming the stream of a call another instance runs: followed in the database.
    const followed = await follower?.follow(session.id, request);
    if (followed !== undefined) return followed;
    return listened(session, await session.transport.handleRequest(versioned, options));
  }
  // A DELETE is no request of the client's own to count.
  if (request.method !== 'POST') return session.transport.handleRequest(versioned, options);
  return tracked(session, () => session.transport.handleRequest(versioned, options));
}

/** Runs one POST of `session`, which counts as busy until its answer has been sent. */
async function tracked(session: Session, run: () => Promise<Response>): Promise<Response> {
  session.inFlight += 1;
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    session.inFlight -= 1;
    throw error;
  }
  return whenSent(response, () => {
    session.inFlight -= 1;
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
