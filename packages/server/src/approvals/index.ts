export {
  type ApprovalRequest,
  ApprovalService,
  type ApprovalServiceOptions,
} from './approval-service.js';
export { APPROVALS_CHANNEL } from './decision-listener.js';
export {
  type ApprovalItem,
  countPendingApprovals,
  type DecideResult,
  findApproval,
  listApprovals,
  pendingApprovalsAt,
} from './store.js';
