import type { AnyRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { decideApprovalRoute } from './decide-approval.js';
import { listApprovalsRoute } from './list-approvals.js';

/**
 * The `/api/approvals` routes: list a user's approvals, and decide one.
 *
 * @example
 * const routes: AnyRoute[] = [...approvalRoutes(services)];
 */
export function approvalRoutes(services: GatewayServices): AnyRoute[] {
  return [listApprovalsRoute(services), decideApprovalRoute(services)];
}
