import type { PluginContext } from '../context/types.js';
import type { Tool } from '../tool/types.js';
import { requireApproval } from './require-approval.js';

/**
 * Asks for the approval a tool declares with `approval: (input) => message`, before its handler
 * runs (the server and `runTool()` both call it). Nothing happens for a tool without one.
 *
 * @throws ApprovalDeniedError when the user declines, cancels or the approval times out.
 */
export async function askDeclaredApproval(
  tool: Pick<Tool, 'path' | 'approval'>,
  ctx: Pick<PluginContext, 'elicit'>,
  input: Record<string, unknown>,
): Promise<void> {
  if (tool.approval === undefined) return;
  await requireApproval(ctx, { toolPath: tool.path, message: tool.approval(input), args: input });
}
