import { type Approval, approvalDecided, approvalPage } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';

export type { Approval } from '../../api/schemas.js';

/** Options of `runApprovalsList()`. */
export interface ApprovalsListOptions extends SignedInOptions {
  /** Every approval, decided ones too; default only those waiting. */
  all?: boolean | undefined;
  json?: boolean | undefined;
}

/**
 * `gateway approvals list`: what tools are waiting for the signed-in user to approve
 * (`GET /api/approvals`), newest first; `all` includes decided and expired ones.
 */
export async function runApprovalsList(options: ApprovalsListOptions): Promise<Approval[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const { approvals } = await api.call({
    method: 'GET',
    path: '/api/approvals',
    query: { userId: await api.userId(), status: options.all ? 'all' : 'pending' },
    schema: approvalPage,
  });
  if (options.json) {
    printJson(io, { approvals });
    return approvals;
  }
  if (approvals.length === 0) {
    io.stdout.write(options.all ? 'No approvals.\n' : 'Nothing is waiting for your approval.\n');
    return approvals;
  }
  printTable(
    io,
    ['ID', 'TOOL', 'STATUS', 'ASKED', 'MESSAGE'],
    approvals.map((approval) => [
      approval.id,
      approval.toolPath,
      approval.status,
      approval.createdAt,
      approval.message,
    ]),
  );
  return approvals;
}

/** Options of `runApprovalsDecide()`. */
export interface ApprovalsDecideOptions extends SignedInOptions {
  id: string;
  decision: 'approve' | 'deny';
  json?: boolean | undefined;
}

/**
 * `gateway approvals approve <id>` and `deny <id>`: decides a pending approval
 * (`POST /api/approvals/:id`); the tool call waiting for it goes ahead, or stops.
 *
 * @throws CliError: no such approval among the user's (1), already decided or expired (1).
 */
export async function runApprovalsDecide(options: ApprovalsDecideOptions): Promise<Approval> {
  const { io } = options;
  const api = await signedInApi(options);
  const { approval } = await api.call({
    method: 'POST',
    path: `/api/approvals/${encodeURIComponent(options.id)}`,
    body: { decision: options.decision },
    schema: approvalDecided,
    notFoundHint: 'see `gateway approvals list`',
  });
  if (options.json) {
    printJson(io, { approval });
    return approval;
  }
  const c = createColors(io);
  io.stdout.write(
    options.decision === 'approve'
      ? `${c.green('✓')} Approved ${approval.toolPath} (${approval.id}); the tool call goes ahead\n`
      : `${c.green('✓')} Denied ${approval.toolPath} (${approval.id}); the tool call stops\n`,
  );
  return approval;
}
