import type { LoggingLevel, Server } from '@modelcontextprotocol/server';
import type { McpPrincipal } from './principal.js';

/**
 * How the client is connected, which decides how a tool's question reaches the user:
 * `modern` (2026-07-28, per request: `input_required`), `session` (2025, a session: a
 * server-to-client `elicitation/create`), `stateless` (2025 without a session: nothing can be
 * sent to the client, so questions wait for a decision in the web app or CLI).
 */
export type ConnectionKind = 'modern' | 'session' | 'stateless';

/** The facts about one connection a tool call needs. */
export interface CallSite {
  principal: McpPrincipal;
  kind: ConnectionKind;
  /** The server instance answering, for the client's declared capabilities. */
  server: Server;
  /** The log level the client asked for on a 2025 session (`logging/setLevel`), if any. */
  sessionLogLevel?: () => LoggingLevel | undefined;
}
