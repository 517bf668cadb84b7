import { AuthRequiredError } from '@gateway/sdk';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Refusal } from '../../errors/refusal.js';
import type { ServerLogger } from '../../http/logger.js';
import { CallFailure } from '../../tool-sources/index.js';
import { refusalProtocolError } from '../refusal-errors.js';

/** Upstream error codes passed on as they are: the caller's request was the problem. */
const PASSED_ON = new Set<number>([
  ProtocolErrorCode.InvalidParams,
  ProtocolErrorCode.InvalidRequest,
  ProtocolErrorCode.ResourceNotFound,
]);

/**
 * What a client is answered when forwarding a request to source `sourceId` failed: the
 * upstream's own refusal with its code (a resource it does not have, bad arguments) and its
 * words, shortened; a missing credential or an unreachable upstream as the gateway says it for
 * tool calls; a service's refusal (the source gone meanwhile) as `refusalProtocolError` says it;
 * anything else as a plain internal error, logged.
 */
export function federatedError(error: unknown, sourceId: string, logger: ServerLogger): Error {
  if (error instanceof ProtocolError) {
    const code = PASSED_ON.has(error.code) ? error.code : ProtocolErrorCode.InternalError;
    return new ProtocolError(
      code,
      `The upstream MCP server of source "${sourceId}" answered an error: ${error.message.slice(0, 500)}`,
    );
  }
  if (Refusal.isInstance(error)) return refusalProtocolError(error);
  if (AuthRequiredError.isInstance(error) || error instanceof CallFailure) {
    return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
  }
  logger.error('federated MCP request failed', {
    sourceId,
    error: error instanceof Error ? error.message : String(error),
  });
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
}

/** The answer for a resource the caller cannot see, whether or not it exists. */
export function resourceNotFound(uri: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.ResourceNotFound,
    `Resource ${uri.slice(0, 500)} not found`,
  );
}

/** The answer for a prompt the caller cannot see, whether or not it exists. */
export function promptNotFound(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Prompt ${name.slice(0, 200)} not found`,
  );
}

/** An upstream's answer that is not what MCP says it must be. */
export function malformedAnswer(sourceId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The upstream MCP server of source "${sourceId}" answered something that is not MCP.`,
  );
}
