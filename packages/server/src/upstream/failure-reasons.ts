import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { type CallToolResult, isSpecType } from '@modelcontextprotocol/server';
import { isRecord } from '../json/is-record.js';
import { CallFailure } from '../tool-sources/index.js';
import { UpstreamHttpError } from './guarded-fetch.js';
import { asksForScope, UpstreamRefusedFailure } from './refused.js';
import { StdioStartError } from './stdio-process.js';
import { RefusedAddressError } from './url-policy.js';

/** Rounds of `input_required` one 2026-07-28 call may take (each may ask the user something). */
export const MAX_INPUT_ROUNDS = 10;

/** The HTTP status an upstream answered, when that is why `error` was thrown. */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof SdkHttpError ? cause.status : undefined;
}

/** The start of the body of the HTTP error answer `error` carries, or ''. */
export function httpTextOf(error: unknown): string {
  const http =
    error instanceof SdkHttpError
      ? error
      : error instanceof Error && error.cause instanceof SdkHttpError
        ? error.cause
        : undefined;
  const text = http?.data.text;
  return typeof text === 'string' ? text.slice(0, 2000) : '';
}

/** The `WWW-Authenticate` challenge of an upstream's 401 or 403 that `error` carries, if any. */
export function challengeOf(error: unknown): string | undefined {
  const http =
    error instanceof SdkHttpError
      ? error
      : error instanceof Error && error.cause instanceof SdkHttpError
        ? error.cause
        : undefined;
  const challenge = http?.data.challenge;
  return typeof challenge === 'string' ? challenge : undefined;
}

/**
 * A failed upstream call as the user and the record read it (`failure`), whether it was the
 * upstream's fault (`fault`, what the circuit breaker counts; undefined when it answered, even
 * with a refusal) and whether it failed below MCP (`belowMcp`: the connection is not to be reused).
 */
export function judgeFailure(
  error: unknown,
  sourceId: string,
  provider: string | undefined,
): { failure: CallFailure; fault?: string; belowMcp: boolean } {
  const label = `The upstream MCP server of source "${sourceId}"`;
  const status = httpStatusOf(error);
  if (status === 401 || status === 403) {
    // It answered: up, whatever it thinks of this credential.
    const challenge = challengeOf(error);
    const stepUp = status === 403 && asksForScope(challenge);
    const what = stepUp
      ? 'needs more access than the credential grants'
      : status === 401
        ? 'refused the credential'
        : 'refused access';
    const fix =
      provider === undefined
        ? "Ask an admin to check the source's credentials."
        : `${stepUp ? `Reconnect ${provider} to grant it` : `Reconnect ${provider}`}: in the web app's Tools tab, or run \`gateway connect ${provider}\`.`;
    return {
      failure: new UpstreamRefusedFailure(
        status,
        `${label} ${what} (HTTP ${status}). ${fix}`,
        `Upstream answered HTTP ${status}${stepUp ? ' (insufficient_scope)' : ''}`,
        challenge,
      ),
      belowMcp: false,
    };
  }
  if (error instanceof ProtocolError) {
    // The upstream's own refusal (unknown tool, invalid arguments): its words, shortened.
    return {
      failure: new CallFailure(
        `${label} answered an error: ${error.message.slice(0, 500)}`,
        `Upstream error ${error.code}`,
      ),
      belowMcp: false,
    };
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const reason = reasonOf(error);
    return {
      failure: new CallFailure(`${label} ${reason}.`, 'Upstream timed out', 'timeout'),
      fault: `it ${reason}`,
      belowMcp: false,
    };
  }
  const reason = reasonOf(error);
  return {
    failure: new CallFailure(`${label} ${reason}.`, `Upstream failed: ${reason}`),
    fault: reason,
    belowMcp: true,
  };
}

/** What went wrong with an upstream, in the gateway's words (never the upstream's raw answer). */
export function reasonOf(error: unknown): string {
  if (error instanceof StdioStartError) return error.message;
  if (error instanceof UpstreamHttpError) return error.message;
  if (error instanceof SdkHttpError) return `answered HTTP ${error.status}`;
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
        return 'closed the connection';
      case SdkErrorCode.ClientHttpUnexpectedContent:
      case SdkErrorCode.InvalidResult:
      case SdkErrorCode.UnsupportedResultType:
        return 'answered something that is not MCP';
      case SdkErrorCode.InputRequiredRoundsExceeded:
        return `kept asking for input (more than ${MAX_INPUT_ROUNDS} rounds)`;
      case SdkErrorCode.RequestTimeout:
        return timeoutReason(error);
      default:
        // The version probe wraps what stopped it (the network, an answer that is not MCP).
        return error.cause === undefined ? 'failed' : reasonOf(error.cause);
    }
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof RefusedAddressError) return `cannot be reached: ${error.message}`;
  if (cause instanceof RefusedAddressError) return `cannot be reached: ${cause.message}`;
  if (cause instanceof UpstreamHttpError) return cause.message;
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
  if (code === 'UND_ERR_SOCKET') return 'dropped the connection';
  if (code !== undefined && (code.startsWith('E') || code.startsWith('UND_ERR_CONNECT'))) {
    return code === 'ENOENT'
      ? 'could not be started (command not found)'
      : `cannot be reached (${code})`;
  }
  if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) {
    return 'answered something that is not MCP';
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = isRecord(cause) && typeof cause.code === 'string' ? ` (${cause.code})` : '';
    return `cannot be reached${code}`;
  }
  return 'failed';
}

/**
 * A request of the SDK client's that timed out (`initialize`, the version probe, a listing), with
 * the limit it had when the error says it. Only that number is read: the error's message may be
 * a stop's reason, which is not the upstream's to show.
 */
function timeoutReason(error: SdkError): string {
  const data = isRecord(error.data) ? error.data : {};
  const limit = typeof data.timeout === 'number' ? data.timeout : data.maxTotalTimeout;
  return typeof limit === 'number' && Number.isFinite(limit) && limit > 0
    ? `did not answer within ${limit / 1000} s`
    : 'did not answer in time';
}

/** `answer` as the tool result the gateway forwards: content, structuredContent, isError. */
export function resultOf(answer: unknown, sourceId: string): CallToolResult {
  if (!isRecord(answer)) throw malformed(sourceId);
  const { content, structuredContent } = answer;
  const result = {
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(answer.isError === true ? { isError: true } : {}),
  };
  // Only what is forwarded is kept, and checked as a tool result.
  if (plainResult(content, structuredContent)) return result as CallToolResult;
  if (!isSpecType.CallToolResult(result) || content === undefined) throw malformed(sourceId);
  return result as CallToolResult;
}

/**
 * Whether a result's `content` and `structuredContent` are what most tools answer and the spec's
 * schema accepts as they stand: text blocks alone (no annotations or `_meta`), and an object or
 * nothing. Such a result skips the schema check (issue 37); any other takes it.
 */
function plainResult(content: unknown, structured: unknown): boolean {
  if (!Array.isArray(content) || !(structured === undefined || isRecord(structured))) return false;
  for (const block of content) {
    if (
      !isRecord(block) ||
      block.type !== 'text' ||
      typeof block.text !== 'string' ||
      block.annotations !== undefined ||
      block._meta !== undefined
    ) {
      return false;
    }
  }
  return true;
}

function malformed(sourceId: string): CallFailure {
  return new CallFailure(
    `The upstream MCP server of source "${sourceId}" answered a result that is not an MCP tool result.`,
    'Upstream answered a malformed result',
  );
}
