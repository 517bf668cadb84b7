import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { defineRoute } from '../http/route.js';
import { mayActFor } from '../identity/index.js';
import type { ApprovalService } from './approval-service.js';
import { decideApprovalBody, decidedSchema } from './schemas.js';
import { findApproval } from './store.js';

/**
 * `POST /api/approvals/:id` `{ decision: 'approve' | 'deny' }`: decides a pending approval; the
 * tool call waiting for it resumes on whichever instance runs it. The user's own approvals, or
 * anyone's for an admin.
 *
 * @example
 * routes.push(decideApprovalRoute(services));
 */
export function decideApprovalRoute(services: {
  database: GatewayDatabase;
  approvals: ApprovalService;
}) {
  return defineRoute({
    method: 'post',
    path: '/api/approvals/:id',
    summary: 'Approve or deny a pending approval',
    tag: 'Approvals',
    access: 'user',
    params: idParams,
    body: decideApprovalBody,
    responses: {
      200: { description: 'Decided; the waiting tool call resumes', schema: decidedSchema },
      400: { description: 'A missing or unknown decision' },
      401: { description: 'No credentials' },
      403: { description: 'A service account' },
      404: { description: "No such approval among the caller's own" },
      409: { description: 'Already decided, or expired' },
    },
    async handler(c, { params, body, principal }) {
      const id = requireUuid(params.id, 'approval');
      if (principal.kind === 'service_account') {
        throw new Refusal('forbidden', 'Service accounts cannot decide approvals');
      }
      const existing = await findApproval(services.database.db, id);
      // Someone else's approval is "not found": a 403 would confirm that it exists.
      if (existing === undefined || !mayActFor(principal, existing.userId)) {
        throw new Refusal('not_found', `No approval ${id}`);
      }
      const decidedBy = principal.kind === 'user' ? principal.userId : 'service';
      const result = await services.approvals.decide(id, body.decision, decidedBy);
      if (result.ok) return c.json({ approval: result.approval }, 200);
      if (result.problem === 'not_found') throw new Refusal('not_found', `No approval ${id}`);
      throw new Refusal(
        'conflict',
        result.problem === 'expired'
          ? `Approval ${id} expired; the tool call did not act. Call the tool again to ask anew.`
          : `Approval ${id} is already ${result.approval.status}`,
        { status: result.approval.status },
      );
    },
  });
}
