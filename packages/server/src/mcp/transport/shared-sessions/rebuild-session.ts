import {
  type JSONRPCMessage,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { asLogLevel } from '../../log-levels.js';
import type { McpPrincipal } from '../../principal.js';
import type { SessionLogLevel } from '../create-server.js';
import { hearCancels, SessionCalls } from '../session-calls.js';
import { replayedInitialize } from '../session-http.js';
import { routeAnswers } from './answer-routing.js';
import type { DatabaseEventStore } from './database-event-store.js';
import type { StoredSession } from './session-rows.js';
import type { SharedSessions } from './shared-sessions.js';

/** A session's server and transport, rebuilt on this instance. */
export interface RebuiltSession {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  level: SessionLogLevel;
  receive: (message: JSONRPCMessage) => void;
  /** Its call streams' events, held until shown (see `DatabaseEventStore`). */
  events: DatabaseEventStore;
  /** Its calls answered without its transport (mcp/session-call.ts). */
  calls: SessionCalls;
}

/** What {@link rebuildSession} needs besides the stored session. */
export interface RebuildOptions {
  shared: SharedSessions;
  principal: McpPrincipal;
  createServer: (principal: McpPrincipal, level: SessionLogLevel) => Promise<Server>;
  maxBodyBytes: number;
  retryMs: number;
  /** The client ended the session (`DELETE`) on this copy. */
  onClosed: (id: string) => Promise<void>;
  /** The URL the client's request came to, for the replayed `initialize`. */
  url: string;
}

/**
 * Rebuilds the stored session on this instance: a fresh server and transport are given the
 * client's `initialize` again, with the session's id and log level, in the state the client
 * left the session in, without a new `initialize` from the client (the SDK has no other way in
 * than its private fields). Nothing of the replay reaches the client or the event store.
 * Undefined when the replay fails or the session was closed meanwhile.
 */
export async function rebuildSession(
  stored: StoredSession,
  options: RebuildOptions,
): Promise<RebuiltSession | undefined> {
  const { shared } = options;
  const id = stored.id;
  const level = shared.levelOf(id, asLogLevel(stored.logLevel));
  const server = await options.createServer(options.principal, level);
  const events = shared.eventStore(id, true, true);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    maxRequestBodySize: options.maxBodyBytes,
    eventStore: events,
    retryInterval: options.retryMs,
    onsessionclosed: options.onClosed,
  });
  await server.connect(transport);
  const calls = new SessionCalls();
  hearCancels(transport, calls);
  const receive = routeAnswers(transport, shared.routing(id));
  const replay = replayedInitialize(options.url, stored.initParams);
  await (await transport.handleRequest(replay.request, { parsedBody: replay.body })).text();
  events.unmute();
  // A replay the server refused, or a session closed on another instance meanwhile.
  if (server.getNegotiatedProtocolVersion() === undefined || !(await shared.load(id))) {
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
    return undefined;
  }
  return { server, transport, level, receive, events, calls };
}
