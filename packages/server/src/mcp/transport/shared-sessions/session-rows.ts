import { expressionBuilder, sql } from 'kysely';
import type { SessionDb, SessionTables } from './tables.js';

/** A session as the database holds it. */
export interface StoredSession {
  id: string;
  owner: string;
  /** The `initialize` params the client opened it with. */
  initParams: Record<string, unknown>;
  logLevel: string | undefined;
}

/** What {@link reserveSession} decided. */
export type Reservation =
  | { ok: true /** Sessions of the owner closed to make room. */; evicted: string[] }
  | { ok: false /** How many sessions the owner holds. */; held: number };

/**
 * Stores a new session of `owner`, closing their least recently used sessions beyond
 * `maxPerOwner - 1` first (never one `busy` says has a request in flight on this instance; of
 * sessions last used in the same millisecond, the lowest id goes first, on every instance). The
 * owner's sessions are counted under a transaction-scoped advisory lock, so instances opening
 * sessions for one owner at once never exceed the cap together.
 */
export async function reserveSession(
  db: SessionDb,
  session: { id: string; owner: string; initParams: unknown; now: Date },
  maxPerOwner: number,
  busy: (id: string) => boolean,
): Promise<Reservation> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`mcp_sessions:${session.owner}`}, 0))`.execute(
      trx,
    );
    const held = await trx
      .selectFrom('mcp_sessions')
      .select('id')
      .where('owner', '=', session.owner)
      .orderBy('last_seen', 'asc')
      .orderBy('id', 'asc')
      .execute();
    const evicted: string[] = [];
    let left = held.length;
    for (const { id } of held) {
      if (left < maxPerOwner) break;
      if (busy(id)) continue;
      evicted.push(id);
      left -= 1;
    }
    if (left >= maxPerOwner) return { ok: false, held: held.length };
    if (evicted.length > 0)
      await trx.deleteFrom('mcp_sessions').where('id', 'in', evicted).execute();
    const now = session.now.toISOString();
    await trx
      .insertInto('mcp_sessions')
      .values({
        id: session.id,
        owner: session.owner,
        init_params: JSON.stringify(session.initParams),
        log_level: null,
        created_at: now,
        last_seen: now,
      })
      .execute();
    return { ok: true, evicted };
  });
}

/** The session `id`, when it is open. */
export async function loadSession(db: SessionDb, id: string): Promise<StoredSession | undefined> {
  const row = await db
    .selectFrom('mcp_sessions')
    .select(['id', 'owner', 'init_params', 'log_level'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const initParams: unknown = JSON.parse(row.init_params);
  if (typeof initParams !== 'object' || initParams === null) return undefined;
  return {
    id: row.id,
    owner: row.owner,
    initParams: { ...initParams },
    logLevel: row.log_level ?? undefined,
  };
}

/**
 * Whether session `id` is open (`session_open`) and its stored log level (`session_log_level`),
 * as scalar subqueries for another statement to select beside its own row: on PostgreSQL a 2025
 * session's request reads them in its token's lookup, where a read of its own was one round trip
 * of the three a session call made (identity's token repository).
 *
 * @example
 * // selecting beside a token's row, `id` a value (or a prepared query's stand-in)
 * db.selectFrom(tokenRow.as('token')).selectAll('token').select(sessionState(sessionId))
 */
export function sessionState(id: string) {
  const eb = expressionBuilder<SessionTables, never>();
  const row = eb.selectFrom('mcp_sessions').where('mcp_sessions.id', '=', id);
  return [
    eb.exists(row.select('mcp_sessions.id')).as('session_open'),
    row.select('mcp_sessions.log_level').as('session_log_level'),
  ] as const;
}

/** Marks the sessions `ids` used at `now`. */
export async function touchSessions(db: SessionDb, ids: readonly string[], now: Date) {
  if (ids.length === 0) return;
  await db
    .updateTable('mcp_sessions')
    .set({ last_seen: now.toISOString() })
    .where('id', 'in', ids)
    .execute();
}

/** Stores the log level of session `id`. */
export async function storeLogLevel(db: SessionDb, id: string, level: string) {
  await db.updateTable('mcp_sessions').set({ log_level: level }).where('id', '=', id).execute();
}

/** Deletes session `id` with its events; true when it existed. */
export async function deleteSession(db: SessionDb, id: string): Promise<boolean> {
  const result = await db.deleteFrom('mcp_sessions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes the sessions unused since `cutoff`; returns their ids. */
export async function expireSessions(db: SessionDb, cutoff: Date): Promise<string[]> {
  const rows = await db
    .deleteFrom('mcp_sessions')
    .where('last_seen', '<', cutoff.toISOString())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Forgets events and relayed messages older than `cutoff`. */
export async function forgetOldEvents(db: SessionDb, cutoff: Date) {
  const before = cutoff.toISOString();
  await db.deleteFrom('mcp_session_events').where('created_at', '<', before).execute();
  await db.deleteFrom('mcp_session_messages').where('created_at', '<', before).execute();
}
