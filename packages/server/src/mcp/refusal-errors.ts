import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Refusal, RefusalCode } from '../errors/refusal.js';

/** Refusals the caller's own request caused: said as invalid parameters, as MCP does. */
const CALLERS_REQUEST = new Set<RefusalCode>(['bad_request', 'validation_failed', 'not_found']);

/**
 * A service's {@link Refusal} where MCP answers a request with a protocol error (federated
 * resources, prompts and completions; a tool call answers it as the tool's error result in
 * `call-tool.ts` instead): its own message, as over HTTP, under `InvalidParams` when the
 * caller's request was the problem and `InternalError` otherwise. The HTTP mapping is
 * `httpErrorOf` of `http/route.ts`.
 *
 * @example
 * if (Refusal.isInstance(error)) throw refusalProtocolError(error);
 */
export function refusalProtocolError(refusal: Refusal): ProtocolError {
  return new ProtocolError(
    CALLERS_REQUEST.has(refusal.code)
      ? ProtocolErrorCode.InvalidParams
      : ProtocolErrorCode.InternalError,
    refusal.message,
  );
}
