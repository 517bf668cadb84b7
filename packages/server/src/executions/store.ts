import type { ExecutionOutcome, GatewayDatabase } from '../db/index.js';

/** An execution record as the API answers it. */
export interface ExecutionListItem {
  id: string;
  userId: string;
  toolPath: string;
  startedAt: string;
  durationMs: number | null;
  /** `null` while the call runs or waits for the client to answer a question. */
  outcome: ExecutionOutcome | null;
  approval: string | null;
  approvedBy: string | null;
  /** The call's arguments, secrets redacted. */
  arguments: unknown;
  error: string | null;
  /** The MCP endpoint the call came through, and its OAuth client. */
  endpointId: string | null;
  clientId: string | null;
}

/** One page of execution records. */
export interface ExecutionPage {
  executions: ExecutionListItem[];
  /** Pass as `cursor` for the next (older) page; `null` on the last page. */
  nextCursor: string | null;
}

interface Cursor {
  startedAt: string;
  id: string;
}

/** Decodes a page cursor; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): Cursor | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    ) {
      return { startedAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // Falls through: not a cursor we made.
  }
  return undefined;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAt, cursor.id]), 'utf8').toString('base64url');
}

/**
 * A user's execution records, newest first, `limit` per page, continuing after `cursor`.
 *
 * @example
 * const { executions, nextCursor } = await listExecutions(database, { userId, limit: 50 });
 */
export async function listExecutions(
  database: GatewayDatabase,
  options: { userId: string; limit: number; cursor?: Cursor | undefined },
): Promise<ExecutionPage> {
  let query = database.db
    .selectFrom('executions')
    .selectAll()
    .where('user_id', '=', options.userId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  const { cursor } = options;
  if (cursor !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('started_at', '<', cursor.startedAt),
        eb.and([eb('started_at', '=', cursor.startedAt), eb('id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    executions: page.map((row) => ({
      id: row.id,
      userId: row.user_id,
      toolPath: row.tool_path,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      outcome: row.outcome,
      approval: row.approval,
      approvedBy: row.approved_by,
      arguments: parseArguments(row.arguments),
      error: row.error,
      endpointId: row.endpoint_id,
      clientId: row.client_id,
    })),
    nextCursor:
      rows.length > options.limit && last !== undefined
        ? encodeCursor({ startedAt: last.started_at, id: last.id })
        : null,
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
