import { sql } from 'kysely';
import type { GatewayDatabase } from '../db/index.js';
import { readActivity } from '../executions/index.js';
import type { Overview } from './schemas.js';

/**
 * What the admin's first page shows: activity over 24 hours and 7 days, the busiest and the
 * failing tools, the approvals waiting and the accounts that need a reconnect.
 *
 * @example
 * const overview = await readOverview(database, new Date());
 */
export async function readOverview(database: GatewayDatabase, now: Date): Promise<Overview> {
  const { db } = database;
  const at = now.toISOString();
  const [activity, pending, oldest, reconnects] = await Promise.all([
    readActivity(database, now),
    db
      .selectFrom('approvals')
      .select(sql<number>`count(*)`.as('count'))
      .where('status', '=', 'pending')
      .where('expires_at', '>', at)
      .executeTakeFirst(),
    db
      .selectFrom('approvals')
      .select(['id', 'user_id', 'tool_path', 'created_at', 'expires_at'])
      .where('status', '=', 'pending')
      .where('expires_at', '>', at)
      .orderBy('created_at')
      .limit(10)
      .execute(),
    db
      .selectFrom('oauth_reconnect')
      .select(['user_id', 'provider_id', 'created_at'])
      .orderBy('created_at', 'desc')
      .limit(50)
      .execute(),
  ]);
  return {
    ...activity,
    pendingApprovals: {
      count: Number(pending?.count ?? 0),
      oldest: oldest.map((row) => ({
        id: row.id,
        userId: row.user_id,
        toolPath: row.tool_path,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      })),
    },
    reconnects: reconnects.map((row) => ({
      userId: row.user_id,
      provider: row.provider_id,
      since: row.created_at,
    })),
  };
}
