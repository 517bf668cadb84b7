import type { AnyRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { decideApprovalRoute } from './decide-approval.js';
import { listApprovalsRoute } from './list-approvals.js';

/** What the approval routes read of the gateway's services. */
export type ApprovalsDeps = Pick<GatewayServices, 'database' | 'approvals'>;

/**
 * The `/api/approvals` routes: list a user's approvals, and decide one.
 *
 * @example
 * const routes: AnyRoute[] = [...approvalRoutes(services)];
 */
export function approvalRoutes(services: ApprovalsDeps): AnyRoute[] {
  return [listApprovalsRoute(services), decideApprovalRoute(services)];
}
