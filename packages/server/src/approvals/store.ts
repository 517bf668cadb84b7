import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { ApprovalRow, ApprovalStatus } from './tables.js';

/** An approval as the API answers it. */
export interface ApprovalItem {
  id: string;
  /** The tool call waiting for it. */
  executionId: string;
  userId: string;
  toolPath: string;
  message: string;
  /** The arguments being approved, secrets redacted. */
  args: unknown;
  status: ApprovalStatus;
  decidedBy: string | null;
  createdAt: string;
  decidedAt: string | null;
  expiresAt: string;
}

/** What a new approval row holds. */
export interface NewApproval {
  id: string;
  executionId: string;
  userId: string;
  toolPath: string;
  message: string;
  /** Already redacted. */
  args: unknown;
  createdAt: Date;
  expiresAt: Date;
}

/** The outcome of {@link decideApproval}. */
export type DecideResult =
  | { ok: true; approval: ApprovalItem }
  | { ok: false; problem: 'not_found' }
  | { ok: false; problem: 'decided' | 'expired'; approval: ApprovalItem };

type Db = Kysely<DatabaseSchema>;

/** Stores a pending approval, to be decided through the API. */
export async function insertPendingApproval(db: Db, approval: NewApproval): Promise<ApprovalItem> {
  const row: ApprovalRow = {
    id: approval.id,
    execution_id: approval.executionId,
    user_id: approval.userId,
    tool_path: approval.toolPath,
    message: approval.message,
    args: JSON.stringify(approval.args ?? {}),
    status: 'pending',
    decided_by: null,
    created_at: approval.createdAt.toISOString(),
    decided_at: null,
    expires_at: approval.expiresAt.toISOString(),
  };
  await db.insertInto('approvals').values(row).execute();
  return toItem(row);
}

/**
 * Stores an approval the client answered in-band (an elicitation), keyed by the id its question
 * carried. Returns false when that id is already stored: the answer was used before, and a
 * replayed answer must not approve anything again.
 */
export async function insertAnsweredApproval(
  db: Db,
  approval: NewApproval & { status: 'approved' | 'denied'; decidedBy: string; decidedAt: Date },
): Promise<boolean> {
  const result = await db
    .insertInto('approvals')
    .values({
      id: approval.id,
      execution_id: approval.executionId,
      user_id: approval.userId,
      tool_path: approval.toolPath,
      message: approval.message,
      args: JSON.stringify(approval.args ?? {}),
      status: approval.status,
      decided_by: approval.decidedBy,
      created_at: approval.createdAt.toISOString(),
      decided_at: approval.decidedAt.toISOString(),
      expires_at: approval.expiresAt.toISOString(),
    })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The approval with this id. */
export async function findApproval(db: Db, id: string): Promise<ApprovalItem | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toItem(row);
}

/**
 * Decides a pending approval. Only a pending approval whose time has not run out can be decided;
 * the update is conditional, so two deciders racing (on any instance) cannot both win.
 */
export async function decideApproval(
  db: Db,
  id: string,
  decision: { status: 'approved' | 'denied'; decidedBy: string; now: Date },
): Promise<DecideResult> {
  const now = decision.now.toISOString();
  const updated = await db
    .updateTable('approvals')
    .set({ status: decision.status, decided_by: decision.decidedBy, decided_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  const approval = await findApproval(db, id);
  if (approval === undefined) return { ok: false, problem: 'not_found' };
  if (Number(updated.numUpdatedRows) === 1) return { ok: true, approval };
  return {
    ok: false,
    problem: approval.status === 'pending' || approval.status === 'expired' ? 'expired' : 'decided',
    approval,
  };
}

/** Marks a still pending approval expired; returns the approval as it now stands. */
export async function expireApproval(
  db: Db,
  id: string,
  now: Date,
): Promise<ApprovalItem | undefined> {
  await db
    .updateTable('approvals')
    .set({ status: 'expired', decided_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
  return findApproval(db, id);
}

/** The decided (or expired) approvals among `ids`, for waiters polling the database. */
export async function findSettled(db: Db, ids: readonly string[]): Promise<ApprovalItem[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('approvals')
    .selectAll()
    .where('id', 'in', ids)
    .where('status', '!=', 'pending')
    .execute();
  return rows.map(toItem);
}

/** Cursor of {@link listApprovals}: the last item of the previous page. */
export interface ApprovalCursor {
  createdAt: string;
  id: string;
}

/**
 * A user's approvals, newest first, optionally only those with `status`.
 *
 * @example
 * const { approvals } = await listApprovals(db, { userId, status: 'pending', limit: 50 });
 */
export async function listApprovals(
  db: Db,
  options: { userId: string; status?: ApprovalStatus; limit: number; cursor?: ApprovalCursor },
): Promise<{ approvals: ApprovalItem[]; next?: ApprovalCursor }> {
  let query = db
    .selectFrom('approvals')
    .selectAll()
    .where('user_id', '=', options.userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.status !== undefined) query = query.where('status', '=', options.status);
  const { cursor } = options;
  if (cursor !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.limit).map(toItem);
  const last = page.at(-1);
  return rows.length > options.limit && last !== undefined
    ? { approvals: page, next: { createdAt: last.createdAt, id: last.id } }
    : { approvals: page };
}

function toItem(row: ApprovalRow): ApprovalItem {
  return {
    id: row.id,
    executionId: row.execution_id,
    userId: row.user_id,
    toolPath: row.tool_path,
    message: row.message,
    args: parseJson(row.args),
    status: row.status,
    decidedBy: row.decided_by,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    expiresAt: row.expires_at,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Approvals stored and waiting for a decision (the metrics' gauge, read when scraped). */
export async function countPendingApprovals(db: Db): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The pending approvals not yet expired at `at` (ISO time): how many, and the `limit` oldest. */
export async function pendingApprovalsAt(
  db: Db,
  at: string,
  limit: number,
): Promise<{
  count: number;
  oldest: { id: string; userId: string; toolPath: string; createdAt: string; expiresAt: string }[];
}> {
  const pending = db
    .selectFrom('approvals')
    .where('status', '=', 'pending')
    .where('expires_at', '>', at);
  const [counted, oldest] = await Promise.all([
    pending.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirst(),
    pending
      .select(['id', 'user_id', 'tool_path', 'created_at', 'expires_at'])
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute(),
  ]);
  return {
    count: Number(counted?.count ?? 0),
    oldest: oldest.map((row) => ({
      id: row.id,
      userId: row.user_id,
      toolPath: row.tool_path,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    })),
  };
}
