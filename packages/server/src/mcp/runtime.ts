import type { Role } from '@gateway/sdk';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import type { GatewayServices } from '../services.js';
import type { ResolvedMcpOptions } from './options.js';
import { type McpPrincipal, subjectId } from './principal.js';
import type { RoundState } from './request-state.js';
import type { ToolIndex, ToolIndexCache } from './tool-list.js';

/** What serving MCP reads of the gateway's services. */
export type McpDeps = Pick<
  GatewayServices,
  | 'approvals'
  | 'baseUrl'
  | 'database'
  | 'executions'
  | 'logger'
  | 'plugins'
  | 'policy'
  | 'redactor'
  | 'tokens'
>;

/** What serving MCP is built from; made once per gateway. */
export interface McpRuntime {
  services: McpDeps;
  options: ResolvedMcpOptions;
  /** Signs and checks `requestState`. */
  codec: RequestStateCodec<RoundState>;
  tools: ToolIndexCache;
}

/** The tools a principal may use right now, as MCP serves them, and its role. */
export interface PrincipalTools {
  role: Role;
  index: ToolIndex;
}

/**
 * Resolves the tools of `principal`: a user's by their role, a service account's by its role and
 * `serviceAccountAllowed`. Cheap after the first call per role: one role lookup, then cached sets.
 */
export async function toolsOf(
  runtime: McpRuntime,
  principal: McpPrincipal,
  /**
   * The principal was authenticated for this very request, which the call does not outlive (a
   * 2026-07-28 request, or a 2025 one outside a session): the role read with its token may be
   * used as is.
   */
  thisRequest = false,
): Promise<PrincipalTools> {
  const { policy } = runtime.services;
  const resolution =
    principal.kind === 'service_account'
      ? await policy.resolveForServiceAccount(principal.roleId)
      : thisRequest && principal.roleRow !== undefined
        ? policy.resolveForUserRole(principal.roleId, principal.roleRow)
        : await policy.resolveForUser(subjectId(principal));
  return { role: resolution.role, index: runtime.tools.get(resolution.tools) };
}
