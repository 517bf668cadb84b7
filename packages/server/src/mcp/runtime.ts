import type { Role } from '@gateway/sdk';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import type { GatewayServices } from '../services.js';
import type { SessionNotices } from './federation/session-notices.js';
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
  | 'upstreams'
>;

/** What serving MCP is built from; made once per gateway. */
export interface McpRuntime {
  services: McpDeps;
  options: ResolvedMcpOptions;
  /** Signs and checks `requestState`. */
  codec: RequestStateCodec<RoundState>;
  tools: ToolIndexCache;
  /** The 2025 sessions that hear upstreams' resource and prompt notices. */
  notices: SessionNotices;
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
): Promise<PrincipalTools> {
  const resolution =
    principal.kind === 'user'
      ? await runtime.services.policy.resolveForUser(subjectId(principal))
      : await runtime.services.policy.resolveForServiceAccount(principal.roleId);
  return { role: resolution.role, index: runtime.tools.get(resolution.tools) };
}
