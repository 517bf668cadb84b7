import { pendingApprovalsAt } from '../approvals/index.js';
import type { GatewayDatabase } from '../db/index.js';
import { readActivity } from '../executions/index.js';
import { recentReconnectMarks } from '../vending/index.js';
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
  const [activity, pendingApprovals, reconnects] = await Promise.all([
    readActivity(database, now),
    pendingApprovalsAt(db, now.toISOString(), 10),
    recentReconnectMarks(db, 50),
  ]);
  return { ...activity, pendingApprovals, reconnects };
}
