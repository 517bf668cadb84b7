import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../../http/logger.js';
import { isRecord } from '../../json/is-record.js';
import type { FederatedSource } from '../../upstream/federation.js';
import { federatedError } from './federated-errors.js';

/** The longest cursor a client may hand back (a source id and the upstream's own cursor). */
const MAX_CURSOR_CHARS = 4096;

/** What {@link federatedPage} lists: one kind of item, from the sources that offer it. */
export interface PageSpec<T> {
  /** The sources to list, in order. */
  sources: readonly FederatedSource[];
  /** The client's cursor, if any. */
  cursor: string | undefined;
  /** The list key in the upstream's answer (`resources`, `resourceTemplates`, `prompts`). */
  key: string;
  /** One listed item as served, or undefined to leave it out (not valid MCP). */
  served: (source: FederatedSource, item: unknown) => T | undefined;
  /** Asks `source` for one page. */
  fetch: (source: FederatedSource, cursor: string | undefined) => Promise<unknown>;
  logger: ServerLogger;
}

/**
 * One page of a list federated from several sources: the sources are read in order, each one
 * page at a time, and the cursor the client gets names the source and that source's own cursor
 * (so a client pages through every source, and a cursor never reaches another source than the
 * one that gave it). A source that cannot be listed is logged and skipped; when none answered
 * anything, the first failure is the answer.
 *
 * @throws ProtocolError InvalidParams for a cursor that is not one the gateway gave for a source
 *   the caller sees.
 */
export async function federatedPage<T>(
  spec: PageSpec<T>,
): Promise<{ items: T[]; nextCursor?: string }> {
  const { sources } = spec;
  let position = 0;
  let upstreamCursor: string | undefined;
  if (spec.cursor !== undefined) {
    const decoded = decodeCursor(spec.cursor);
    position = decoded === undefined ? -1 : sources.findIndex((source) => source.id === decoded.id);
    if (decoded === undefined || position < 0) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
    }
    upstreamCursor = decoded.cursor;
  }
  let failure: Error | undefined;
  const items: T[] = [];
  for (; position < sources.length; position++, upstreamCursor = undefined) {
    const source = sources[position] as FederatedSource;
    let answer: unknown;
    try {
      answer = await spec.fetch(source, upstreamCursor);
    } catch (error) {
      failure ??= federatedError(error, source.id, spec.logger);
      spec.logger.warn('upstream list not served', { sourceId: source.id, key: spec.key });
      continue;
    }
    const listed = isRecord(answer) && Array.isArray(answer[spec.key]) ? answer[spec.key] : [];
    for (const item of listed as unknown[]) {
      const served = spec.served(source, item);
      if (served !== undefined) items.push(served);
    }
    const next = isRecord(answer) ? answer.nextCursor : undefined;
    if (typeof next === 'string' && next.length > 0 && next.length <= MAX_CURSOR_CHARS - 100) {
      return { items, nextCursor: encodeCursor(source.id, next) };
    }
    const following = sources[position + 1];
    if (items.length > 0 && following !== undefined) {
      return { items, nextCursor: encodeCursor(following.id, undefined) };
    }
  }
  if (items.length === 0 && failure !== undefined) throw failure;
  return { items };
}

function encodeCursor(id: string, cursor: string | undefined): string {
  return Buffer.from(JSON.stringify(cursor === undefined ? [id] : [id, cursor])).toString(
    'base64url',
  );
}

function decodeCursor(cursor: string): { id: string; cursor: string | undefined } | undefined {
  if (cursor.length > MAX_CURSOR_CHARS) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || typeof decoded[0] !== 'string') return undefined;
    const [id, upstream] = decoded as unknown[];
    if (decoded.length === 1) return { id: id as string, cursor: undefined };
    if (decoded.length === 2 && typeof upstream === 'string') {
      return { id: id as string, cursor: upstream };
    }
    return undefined;
  } catch {
    return undefined;
  }
}
