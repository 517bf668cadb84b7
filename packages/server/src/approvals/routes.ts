import type { GatewayDatabase } from '../db/database.js';
import type { AnyRoute } from '../http/route.js';
import type { ApprovalService } from './approval-service.js';
import { decideApprovalRoute } from './decide-approval.js';
import { listApprovalsRoute } from './list-approvals.js';

/** What the approval routes read of the gateway's services. */
export type ApprovalsDeps = { database: GatewayDatabase; approvals: ApprovalService };

/**
 * The `/api/approvals` routes: list a user's approvals, and decide one.
 *
 * @example
 * const routes: AnyRoute[] = [...approvalRoutes(services)];
 */
export function approvalRoutes(services: ApprovalsDeps): AnyRoute[] {
  return [listApprovalsRoute(services), decideApprovalRoute(services)];
}
