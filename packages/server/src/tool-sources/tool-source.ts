import type { AuthProvider, PluginContext, ToolCall } from '@gateway/sdk';
import type { SchemaIssue } from '@gateway/sdk/kernel';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import type { UrlElicitation } from '../mcp/call/elicitation.js';
import type { CallRedaction } from '../mcp/call-redaction.js';

/** The kinds of source a tool can come from (`registry_sources.type`). */
export type SourceKind = 'plugin' | 'mcp';

/**
 * A caller's arguments once a source has checked them: zod's `safeParse` result shape, so a plugin
 * tool hands over zod's own result (no copy, no extra promise per call).
 */
export type CheckedInput =
  | { success: true; data: unknown }
  | { success: false; error: { issues: readonly SchemaIssue[] } };

/**
 * What a source's {@link ToolSource.run} gets of one call. The pipeline makes it once per call and
 * hands the same object to a plugin handler as its `call` argument, so a source costs no extra
 * allocation.
 */
export interface SourceCall extends ToolCall {
  /** The handler context: user, role, `auth` (credentials masked once vended), `elicit`, `logger`. */
  readonly context: PluginContext;
  /**
   * Sends an MCP log notification to the client when it asked for that level, masked like every
   * other text of the call; for upstream servers whose own log lines are relayed.
   */
  forwardLog(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * The lowest level of log messages the calling client asked for, if any: an upstream is asked
   * for no more than that, since {@link forwardLog} drops the rest.
   */
  readonly clientLogLevel: LoggingLevel | undefined;
  /** The calling client asked for progress: else {@link ToolCall.reportProgress} drops every report. */
  readonly takesProgress: boolean;
  /**
   * Asks the user to open a link (an upstream's URL-mode elicitation, checked by the relay) by the
   * best way the client offers, else the approvals list; how the user answered.
   */
  elicitUrl(asked: UrlElicitation): Promise<'accept' | 'decline' | 'cancel'>;
  /**
   * The upstream says the step behind a link it asked for is done
   * (`notifications/elicitation/complete`): told to the calling client when this call showed it
   * that link (a 2025 session client that takes links), else dropped.
   */
  forwardLinkDone(elicitationId: string): void;
  /**
   * The calling client is on a 2025 session and declared URL-mode elicitation: an upstream's "URL
   * elicitation required" error (`-32042`) goes to it as it is, and the client calls again once
   * the user is done. (2026-07-28 has no such error: its clients are asked in `input_required`.)
   */
  readonly takesLinks: boolean;
  /** Masks every value vended to this call (and the server's secrets) in what the call lets out. */
  readonly redaction: CallRedaction;
  /** The server log, with tool, execution and user attached (never sent to the client). */
  readonly log: ServerLogger;
  /** Whether the tool asked the client something that ends this round (`input_required`). */
  readonly questionPending: boolean;
  /**
   * Calls `listener` once if the call is stopped (its time limit, the client) before the function
   * it returns is called, at once when it already was; never when the call just ends. A source
   * that forwards a stop (an upstream request) listens here rather than on `signal`, which is made
   * when first read and then aborted at every call's end (issue 37).
   */
  onStop(listener: (reason: unknown) => void): () => void;
  /**
   * Said by a source as it starts sending its request to an upstream, in its synchronous start:
   * answers the function to call once the request is written (or failed before). What the call
   * put off until then (`RunningCall.afterSent`) runs at that call, while the upstream works
   * (issue 37); the function never throws. Optional: a test's call may leave it out.
   */
  sending?(): () => void;
}

/**
 * Where a served tool comes from and how it runs: a plugin tool (`@gateway/sdk` handler) or a
 * tool of an upstream MCP server. The `tools/call` pipeline (mcp/call/call-tool.ts) resolves, resumes,
 * validates, authorizes and settles the same way for every kind; only the steps below differ.
 */
export interface ToolSource {
  readonly kind: SourceKind;
  /**
   * Whose credentials the call may be vended: an id for errors and logs and the providers it
   * declares. `ctx.auth.getToken` refuses any other provider before reading a credential.
   */
  readonly credentials: { readonly id: string; readonly authProviders: readonly AuthProvider[] };
  /**
   * Checks a caller's arguments before anything runs: at once when there is nothing to wait for
   * (an upstream's tool, which the upstream checks itself), so the call takes no turn for it.
   */
  checkInput(args: Record<string, unknown>): CheckedInput | Promise<CheckedInput>;
  /**
   * Runs the tool. Throws what a handler may throw (`ToolError`, `AuthRequiredError`, ...) or a
   * {@link CallFailure}; the pipeline turns each into an `isError` result and one record.
   */
  run(input: unknown, call: SourceCall): Promise<CallToolResult>;
}

/**
 * A call that failed for a reason the source can name: what the user reads and what the record
 * keeps (short, no secrets; the pipeline masks both again with the call's redaction).
 */
export class CallFailure extends Error {
  readonly recorded: string;
  readonly outcome: 'error' | 'timeout' | 'denied';

  constructor(
    message: string,
    recorded: string,
    outcome: 'error' | 'timeout' | 'denied' = 'error',
  ) {
    super(message);
    this.name = 'CallFailure';
    this.recorded = recorded;
    this.outcome = outcome;
  }
}

/**
 * A call that cannot go on until the user has opened links (an upstream's "URL elicitation
 * required", `-32042`), for a client that takes links ({@link SourceCall.takesLinks}): the
 * pipeline records the call, then answers the client the same JSON-RPC error with the checked
 * links, and the client calls again once the user is done.
 */
export class LinksRequired extends CallFailure {
  readonly links: readonly UrlElicitation[];

  constructor(message: string, links: readonly UrlElicitation[]) {
    super(message, 'URL elicitation required');
    this.name = 'LinksRequired';
    this.links = links;
  }
}
