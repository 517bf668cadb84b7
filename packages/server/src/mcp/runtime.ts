import type { Role } from '@gateway/sdk/kernel';
import type {
  CallToolResult,
  InputRequiredResult,
  RequestStateCodec,
} from '@modelcontextprotocol/server';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { GatewayDatabase } from '../db/database.js';
import type { ExecutionRecorder } from '../executions/recorder.js';
import type { ServerLogger } from '../http/logger.js';
import type { Redactor } from '../http/redact.js';
import type { EndpointScopes } from '../mcp-endpoints/endpoint-scopes.js';
import {
  type EndpointMode,
  type EndpointScope,
  endpointScopeOf,
  WHOLE_ROLE,
} from '../mcp-endpoints/index.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import type { UpstreamService } from '../upstream/upstream-service.js';
import type { TokenVendor } from '../vending/token-vendor.js';
import type { CallContext } from './call-site.js';
import type { CallTimer } from './call-timer.js';
import type { SearchWarmer } from './discovery/warm-searches.js';
import type { SessionNotices } from './federation/session-notices.js';
import type { ResolvedMcpOptions } from './options.js';
import { type McpPrincipal, subjectId } from './principal.js';
import type { RoundState } from './request-state.js';
import type { ServedTools } from './served-tools.js';
import type { ToolIndex, ToolIndexCache } from './tool-list.js';

/** What serving MCP reads of the gateway's services. */
export type McpDeps = {
  approvals: ApprovalService;
  baseUrl: string;
  database: GatewayDatabase;
  endpointScopes: EndpointScopes;
  executions: ExecutionRecorder;
  logger: ServerLogger;
  plugins: PluginCatalog;
  policy: PolicyService;
  redactor: Redactor;
  tokens: TokenVendor;
  upstreams: UpstreamService;
};

/** What serving MCP is built from; made once per gateway. */
export interface McpRuntime {
  services: McpDeps;
  options: ResolvedMcpOptions;
  /** What runs each call's time limit (a `setTimeout`; the tests' fires when they say). */
  callTimer: CallTimer;
  /** Signs and checks `requestState`. */
  codec: RequestStateCodec<RoundState>;
  tools: ToolIndexCache;
  /** The 2025 sessions that hear upstreams' resource and prompt notices. */
  notices: SessionNotices;
  /** What each 2025 session was last served by `tools/list`. */
  served: ServedTools;
  /** Discovery endpoints' search indexes, built again when what they serve changes. */
  searches: SearchWarmer;
  /**
   * The principal `authenticate()` found for each request a 2025 session's transport is serving,
   * by that request (`ctx.http.req` in the session's handlers): the session's own, with the role
   * and endpoint rows read with this request's token (see `CallSite.authenticated`).
   */
  requestPrincipals: WeakMap<Request, McpPrincipal>;
  /**
   * A 2025 session's `tools/call` that started without the session's transport and is handed to
   * it mid-call, by the request the transport is given (mcp/transport/session-call.ts): the session's
   * `tools/call` handler takes the running call over instead of starting it again.
   */
  handovers: WeakMap<Request, CallHandover>;
}

/** Takes a running call over with the SDK's context of its request; answers its result. */
export type CallHandover = (ctx: CallContext) => Promise<CallToolResult | InputRequiredResult>;

/** The tools a principal may use right now, as MCP serves them, its role, and how they are offered. */
export interface PrincipalTools {
  role: Role;
  /** The tools it may call: its role's, narrowed by its endpoint's patterns. */
  index: ToolIndex;
  /** `discovery`: `tools/list` serves the meta-tools instead (discovery.ts). */
  mode: EndpointMode;
}

/**
 * Resolves the tools of `principal`: a user's by their role narrowed by the endpoint they came
 * through (any kind of endpoint: its row decides, see `EndpointScopes`), a service account's by its
 * role and `serviceAccountAllowed`. Cheap after the first call per role and endpoint patterns: a
 * role lookup and an endpoint lookup, then cached sets.
 */
export async function toolsOf(
  runtime: McpRuntime,
  principal: McpPrincipal,
  /**
   * The principal was authenticated for this very request, which the call does not outlive (a
   * 2026-07-28 request, or a 2025 one outside a session): the role and the endpoint's row read
   * with its token may be used as is (on PostgreSQL, no read of either again).
   */
  thisRequest = false,
): Promise<PrincipalTools> {
  return toolsNow(runtime, principal, thisRequest);
}

/**
 * {@link toolsOf}, at once when nothing is to be read (the role and endpoint rows read with this
 * request's token, the common case of a call): a call takes no promise or turn for it (issue 37).
 *
 * @throws what {@link toolsOf} rejects with, synchronously when it is thrown at once.
 */
export function toolsNow(
  runtime: McpRuntime,
  principal: McpPrincipal,
  thisRequest = false,
): PrincipalTools | Promise<PrincipalTools> {
  const { policy, endpointScopes } = runtime.services;
  if (principal.kind === 'service_account') {
    return policy.resolveForServiceAccount(principal.roleId).then((resolution) => ({
      role: resolution.role,
      index: runtime.tools.get(resolution.tools),
      mode: 'tools' as const,
    }));
  }
  const resolution =
    thisRequest && principal.roleRow !== undefined
      ? policy.resolveForUserRole(principal.roleId, principal.roleRow)
      : policy.resolveForUser(subjectId(principal));
  const scope =
    principal.endpointId === undefined
      ? WHOLE_ROLE
      : thisRequest && principal.endpointRow !== undefined
        ? endpointScopeOf(principal.endpointRow)
        : endpointScopes.scopeOf(principal.endpointId);
  if (resolution instanceof Promise || scope instanceof Promise) {
    return Promise.all([resolution, scope]).then(([resolved, scoped]) =>
      principalTools(runtime, principal, resolved, scoped),
    );
  }
  return principalTools(runtime, principal, resolution, scope);
}

function principalTools(
  runtime: McpRuntime,
  principal: McpPrincipal,
  resolution: Awaited<ReturnType<McpRuntime['services']['policy']['resolveForUserRole']>>,
  scope: EndpointScope,
): PrincipalTools {
  if (scope.mode === 'discovery') runtime.searches.remember(principal);
  return {
    role: resolution.role,
    index: runtime.tools.get(resolution.tools, scope),
    mode: scope.mode,
  };
}
