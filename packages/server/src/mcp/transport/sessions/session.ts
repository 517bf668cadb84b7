import type {
  JSONRPCMessage,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { McpPrincipal } from '../../principal.js';
import type { SessionLogLevel } from '../create-server.js';
import type { SessionCalls } from '../session-calls.js';

/** What a new or rebuilt session is made of, before it is held (see `LegacySessions`). */
export interface SessionParts {
  id: string;
  principal: McpPrincipal;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  level: SessionLogLevel;
  /** Delivers a message another instance forwarded (shared sessions only). */
  receive: ((message: JSONRPCMessage) => void) | undefined;
  /**
   * Shared sessions: the store holding back the events of its call streams until told how each
   * POST's answer went out (`DatabaseEventStore`).
   */
  events?: HeldEvents | undefined;
  /** Its calls answered without its transport, while they run (mcp/session-call.ts). */
  calls: SessionCalls;
}

/** Events held back until a POST's answer goes out (see `DatabaseEventStore`). */
export interface HeldEvents {
  /** The answers to `requestIds` went out as one JSON body: their streams' events are dropped. */
  answeredAlone(requestIds: readonly (string | number)[]): void;
  /** An answer goes out as an event stream: resolves once every held event is stored. */
  shown(): Promise<void>;
}

/** A 2025 session this instance holds (on PostgreSQL: its copy of the session). */
export interface Session extends Omit<SessionParts, 'receive'> {
  /** The principal that opened it: only the same principal may use it. */
  owner: string;
  lastSeen: number;
  /** POSTs of the session whose answer is still being sent (a call running, a question asked). */
  inFlight: number;
  /** Standalone GET streams of the session open on this instance. */
  listening: number;
  /**
   * A copy rebuilt here of a session another instance opened (PostgreSQL): capped and dropped
   * sooner when idle (the session itself lives on in the database).
   */
  rebuilt?: boolean;
  /** When a GET last resumed a stream (`Last-Event-ID`) here: a closed call stream is taken up. */
  resumedAt?: number;
  receive?: SessionParts['receive'];
}

/** How long a client whose SSE stream closed should wait before reconnecting. */
export const RETRY_MS = 1000;

/** Closes the transport and server of `session`. Never throws: a failure to close is ignored. */
export async function closeSession(session: Session): Promise<void> {
  session.calls.stopAll();
  await session.transport.close().catch(() => {});
  await session.server.close().catch(() => {});
}
