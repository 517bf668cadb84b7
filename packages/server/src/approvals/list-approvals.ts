import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { defineRoute } from '../http/route.js';
import { approvalPageSchema, listApprovalsQuery } from './schemas.js';
import { type ApprovalCursor, listApprovals } from './store.js';

/**
 * `GET /api/approvals?userId=&status=`: the approvals tools asked of a user, newest first; by
 * default only those still waiting for a decision.
 *
 * @example
 * routes.push(listApprovalsRoute(services));
 */
export function listApprovalsRoute(services: { database: GatewayDatabase }) {
  return defineRoute({
    method: 'get',
    path: '/api/approvals',
    summary: "List a user's approvals (default: those waiting for a decision)",
    tag: 'Approvals',
    access: 'user',
    actsFor: 'query',
    query: listApprovalsQuery,
    responses: {
      200: { description: 'One page of approvals, newest first', schema: approvalPageSchema },
      400: { description: 'userId missing, a bad status, cursor or limit' },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
    },
    async handler(c, { query }) {
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page = await listApprovals(services.database.db, {
        userId: query.userId,
        limit: query.limit,
        ...(query.status === 'all' ? {} : { status: query.status }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return c.json(
        {
          approvals: page.approvals,
          nextCursor: page.next === undefined ? null : encodeCursor(page.next),
        },
        200,
      );
    },
  });
}

function encodeCursor(cursor: ApprovalCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

function decodeCursor(text: string): ApprovalCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
      return { createdAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // Falls through to the error below.
  }
  throw new Refusal('validation_failed', 'Invalid query', [
    { path: 'cursor', message: 'Not a cursor this API gave out' },
  ]);
}
