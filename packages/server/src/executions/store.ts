import { sql } from 'kysely';
import type { GatewayDatabase } from '../db/index.js';
import { type ExecutionFilters, filterConditions, pathPrefix, prefixRange } from './filters.js';
import type { ExecutionOutcome, ExecutionRow } from './tables.js';

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

export interface Cursor {
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
 * Execution records matching `filters`, newest first, `limit` per page, continuing after `cursor`
 * (keyset pagination on `(started_at, id)`, so a page costs the same however deep it is).
 *
 * @example
 * const { executions, nextCursor } = await listExecutions(database, { userId, limit: 50 });
 */
export async function listExecutions(
  database: GatewayDatabase,
  options: ExecutionFilters & { limit: number; cursor?: Cursor | undefined },
): Promise<ExecutionPage> {
  const rows = await pageRows(database, options, options.limit + 1, options.cursor);
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    executions: page.map(toListItem),
    nextCursor:
      rows.length > options.limit && last !== undefined
        ? encodeCursor({ startedAt: last.started_at, id: last.id })
        : null,
  };
}

/** Above this many calls, a path prefix is common enough to find newest first. */
const RARE_PREFIX = 1000;

/**
 * Whether at most {@link RARE_PREFIX} calls have a tool path starting with `prefix`: a read of at
 * most that many entries of the tool-path index.
 */
async function isRarePrefix(database: GatewayDatabase, prefix: string): Promise<boolean> {
  const rows = await database.db
    .selectFrom('executions')
    .select('id')
    .where((eb) => prefixRange(eb, prefix, database.dialect))
    .limit(RARE_PREFIX + 1)
    .execute();
  return rows.length <= RARE_PREFIX;
}

/**
 * Rows matching `filters` after `cursor`, newest first. Walking the `started_at` index newest
 * first finds a page at once when matches are common; a tool or source prefix that few calls
 * have would make that walk read the whole table, so such a prefix is read as a range of the
 * tool-path index instead and its few rows sorted (issue 38: a filter matching nothing answered
 * in 2.4 s on 1M rows before).
 */
export async function pageRows(
  database: GatewayDatabase,
  filters: ExecutionFilters,
  limit: number,
  cursor?: Cursor | undefined,
): Promise<ExecutionRow[]> {
  const prefix = pathPrefix(filters);
  const rare = prefix !== undefined && (await isRarePrefix(database, prefix));
  // SQLite: `+started_at` keeps the planner from ordering by the started_at index, so it reads
  // the tool-path range; PostgreSQL picks the range from its statistics.
  const newest =
    rare && database.dialect === 'sqlite' ? sql<string>`+started_at` : sql<string>`started_at`;
  let query = database.db
    .selectFrom('executions')
    .selectAll()
    .where((eb) => filterConditions(eb, filters))
    .orderBy(newest, 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (rare) query = query.where((eb) => prefixRange(eb, prefix, database.dialect));
  if (cursor !== undefined) {
    // The `<=` alone bounds the index range: with only the OR, SQLite scans from the newest.
    query = query
      .where('started_at', '<=', cursor.startedAt)
      .where((eb) =>
        eb.or([
          eb('started_at', '<', cursor.startedAt),
          eb.and([eb('started_at', '=', cursor.startedAt), eb('id', '<', cursor.id)]),
        ]),
      );
  }
  return query.execute();
}

/**
 * One execution record by id; `undefined` when there is none (or, with `userId`, none of theirs).
 *
 * @example
 * const record = await findExecution(database, id, viewer.isAdmin ? undefined : viewer.id);
 */
export async function findExecution(
  database: GatewayDatabase,
  id: string,
  userId?: string,
): Promise<ExecutionListItem | undefined> {
  let query = database.db.selectFrom('executions').selectAll().where('id', '=', id);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : toListItem(row);
}

/** A row as the API answers it. */
export function toListItem(row: ExecutionRow): ExecutionListItem {
  return {
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
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
