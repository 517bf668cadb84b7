import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { ServerLogger } from '../http/logger.js';
import { nestedDeeperThan, nestsWithin } from '../json/nesting.js';

/** The deepest nesting of objects and arrays an upstream message may have. */
export const MAX_MESSAGE_DEPTH = 100;

/** Why a message nested deeper than {@link MAX_MESSAGE_DEPTH} is refused. */
export const TOO_DEEP = `The upstream sent a message nested more than ${MAX_MESSAGE_DEPTH} levels deep, which is not MCP`;

/**
 * Whether `message` (parsed JSON) is nested deeper than any MCP message needs: deep enough to
 * overflow the stack of whatever walks it next (a schema check, `JSON.stringify`).
 */
export function tooDeep(message: unknown): boolean {
  return nestedDeeperThan(message, MAX_MESSAGE_DEPTH);
}

/**
 * {@link tooDeep} of `message`, parsed from `text`: answered from the text alone when it has too
 * few brackets to nest that deep ({@link nestsWithin}), what almost every message is.
 */
export function tooDeepParsed(text: string, message: unknown): boolean {
  return !nestsWithin(text, MAX_MESSAGE_DEPTH) && tooDeep(message);
}

/**
 * Holds a connected stdio transport's messages to {@link MAX_MESSAGE_DEPTH}, as the HTTP transport
 * holds its own when it parses them (the SDK's stdio transport parses its lines itself). It wraps
 * the handler the client set when it connected, so it is called after `client.connect()`.
 * An answer too deep becomes an error answer to its request, which ends that call at once; a
 * request too deep is refused to the upstream; a notification too deep is dropped.
 */
export function holdToDepth(transport: Transport, logger: ServerLogger, sourceId: string): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (!tooDeep(message)) {
      deliver?.(message, extra);
      return;
    }
    const id = 'id' in message ? message.id : undefined;
    const error = { code: -32600, message: TOO_DEEP };
    if (id !== undefined && !('method' in message)) {
      deliver?.({ jsonrpc: '2.0', id, error }, extra);
    } else if (id !== undefined) {
      transport.send({ jsonrpc: '2.0', id, error }).catch(() => {});
    } else {
      logger.warn('upstream message dropped', { sourceId, reason: TOO_DEEP });
    }
  };
}
