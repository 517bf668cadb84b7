import type { ClientCapabilities, LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
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
  /** What the client declared it can do (on a session, at `initialize`; else per request). */
  clientCapabilities(): ClientCapabilities | undefined;
  /** The log level the client asked for on a 2025 session (`logging/setLevel`), if any. */
  sessionLogLevel?: () => LoggingLevel | undefined;
  /**
   * A 2025 session's call: the principal `authenticate()` found for the very HTTP request that
   * carries it (the session's owner, through the session's endpoint, as `LegacySessions` checks),
   * with the role and endpoint rows read with its token. The call lives no longer than that
   * request, so its tools are resolved from those rows, as a 2026-07-28 call's are, instead of
   * reading the role and the endpoint again (two round trips a call on PostgreSQL).
   */
  authenticated?: McpPrincipal;
}

/**
 * What a tool call reads of its request: the parts of the SDK's `ServerContext` the call path
 * uses, so a call the gateway answers itself (`direct-call.ts`) can give the same.
 */
export interface CallContext {
  mcpReq: Pick<
    ServerContext['mcpReq'],
    | 'id'
    | 'signal'
    | '_meta'
    | 'envelope'
    | 'requestState'
    | 'inputResponses'
    | 'notify'
    | 'elicitInput'
    | 'requestSampling'
  >;
  http?: Pick<NonNullable<ServerContext['http']>, 'closeSSE'> | undefined;
  /**
   * Tells `listener` once, with the reason, when the request is stopped (the client left, the
   * gateway is stopping), as `mcpReq.signal` aborts then, at once if it has; answers the function
   * that stops listening. Given, the call listens here and `mcpReq.signal` is made only when read
   * (`direct-call.ts`); without it the call listens to `mcpReq.signal`.
   */
  onStop?: (listener: (reason: unknown) => void) => () => void;
}
