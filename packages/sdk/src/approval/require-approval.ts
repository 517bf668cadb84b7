import type { ElicitRequest, ElicitResult, PluginContext } from '../context/types.js';
import { ApprovalDeniedError } from '../errors/approval-denied-error.js';

/**
 * Asks the user to approve `request` and stops the tool unless they do: the spec's "stop and raise
 * an error" in one line. Call it before the tool changes anything.
 *
 * @throws ApprovalDeniedError when the user declines, cancels or the approval times out.
 * @example
 * await requireApproval(ctx, { message: `Delete note ${input.id}?`, args: input });
 * store.delete(input.id);
 */
export async function requireApproval(
  ctx: Pick<PluginContext, 'elicit'>,
  request: ElicitRequest,
): Promise<ElicitResult> {
  const result = await ctx.elicit(request);
  if (!result.approved) throw new ApprovalDeniedError(request.toolPath, result);
  return result;
}
