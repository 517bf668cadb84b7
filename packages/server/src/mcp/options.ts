import type { MountedTool } from '../registry/index.js';

/** Settings of the MCP endpoints (`createGateway({ mcp })`). */
export interface McpOptions {
  /** How long a tool handler may run, not counting time spent waiting for the user. Default 60 s. */
  toolTimeoutMs?: number;
  /**
   * How long a call waits for the user to approve (every path), and how long a question asked
   * through `input_required` stays answerable. Default 5 minutes.
   */
  approvalTimeoutMs?: number;
  /** A 2025 session unused this long is closed (the client then starts a new one). Default 30 min. */
  sessionIdleMs?: number;
  /**
   * The most 2025 sessions kept at once, a memory guard: at it, the principal holding the most
   * sessions gives up its least recently used idle one. Default 10,000.
   */
  maxSessions?: number;
  /**
   * PostgreSQL: the most copies of 2025 sessions opened on other instances this instance keeps
   * (rebuilt when a request of such a session comes here: the balancer moved it, or its
   * instance is gone). At it, the least recently used idle copy is dropped; when every copy is
   * busy, a request needing another answers 429. Default 1,000.
   */
  maxRebuiltSessions?: number;
  /**
   * PostgreSQL: a rebuilt copy (see `maxRebuiltSessions`) unused this long is dropped; the
   * session stays open and is rebuilt again if needed. Default 2 minutes.
   */
  rebuiltSessionIdleMs?: number;
  /**
   * The most 2025 sessions one user or service account may hold (`GATEWAY_MAX_SESSIONS_PER_USER`).
   * One more closes their own least recently used idle session, never another user's; when all
   * of theirs have a request in flight, the new `initialize` answers 429. Default 100.
   */
  maxSessionsPerUser?: number;
  /**
   * Closes the SSE stream of a tool call on a 2025-11-25 session once the call has run this long
   * (SEP-1699 polling); the client reconnects after the stream's `retry` interval and receives
   * what it missed, then the result. For proxies that cut long responses, and to free connections
   * held by calls that wait minutes for an approval. Default: off (streams stay open).
   */
  releaseStreamAfterMs?: number;
  /**
   * How often this instance closes out calls nobody will finish (a client that was asked a
   * question and never came back): their records become `timeout` once the approval timeout
   * plus the tool timeout have passed since their latest step. Default 60 s.
   */
  sweepEveryMs?: number;
  /**
   * The MCP tool name of a tool. Default: its path, as DESIGN.md decides. Names must stay unique;
   * the conformance run uses this to serve fixture tools under the names the suite calls.
   */
  toolName?: (tool: MountedTool) => string;
}

/** {@link McpOptions} with every default applied. */
export interface ResolvedMcpOptions {
  toolTimeoutMs: number;
  approvalTimeoutMs: number;
  /** The gateway's body limit (`createGateway({ maxBodyBytes })`). */
  maxBodyBytes: number;
  sessionIdleMs: number;
  maxSessions: number;
  maxSessionsPerUser: number;
  maxRebuiltSessions: number;
  rebuiltSessionIdleMs: number;
  releaseStreamAfterMs: number | undefined;
  sweepEveryMs: number;
  toolName: (tool: MountedTool) => string;
}

/**
 * Applies the defaults to `options`; `maxBodyBytes` is the gateway's body limit.
 *
 * @throws Error naming the option when a number is not positive.
 */
export function resolveMcpOptions(options: McpOptions, maxBodyBytes: number): ResolvedMcpOptions {
  return {
    toolTimeoutMs: positive('toolTimeoutMs', options.toolTimeoutMs, 60_000),
    approvalTimeoutMs: positive('approvalTimeoutMs', options.approvalTimeoutMs, 5 * 60_000),
    maxBodyBytes,
    sessionIdleMs: positive('sessionIdleMs', options.sessionIdleMs, 30 * 60_000),
    maxSessions: positive('maxSessions', options.maxSessions, 10_000),
    maxSessionsPerUser: positiveWhole('maxSessionsPerUser', options.maxSessionsPerUser, 100),
    maxRebuiltSessions: positiveWhole('maxRebuiltSessions', options.maxRebuiltSessions, 1000),
    rebuiltSessionIdleMs: positive(
      'rebuiltSessionIdleMs',
      options.rebuiltSessionIdleMs,
      2 * 60_000,
    ),
    releaseStreamAfterMs:
      options.releaseStreamAfterMs === undefined
        ? undefined
        : positive('releaseStreamAfterMs', options.releaseStreamAfterMs, 0),
    sweepEveryMs: positive('sweepEveryMs', options.sweepEveryMs, 60_000),
    toolName: options.toolName ?? ((tool) => tool.path),
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`createGateway({ mcp: { ${name} } }) must be a positive number, got ${value}`);
  }
  return value;
}

function positiveWhole(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(
      `createGateway({ mcp: { ${name} } }) must be a positive whole number, got ${value}`,
    );
  }
  return value;
}
