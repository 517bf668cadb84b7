import {
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { SERVER_VERSION } from '../../openapi/server-version.js';
import { callTool } from '../call/call-tool.js';
import type { CallSite, ConnectionKind } from '../call-site.js';
import { META_TOOLS } from '../discovery/index.js';
import { federatedCapabilities, serveFederated, visibleSources } from '../federation/index.js';
import { asLogLevel } from '../log-levels.js';
import type { McpPrincipal } from '../principal.js';
import { type McpRuntime, toolsOf } from '../runtime.js';

/** How the gateway names itself to MCP clients. */
export const SERVER_INFO = { name: 'gateway', title: 'Gateway', version: SERVER_VERSION };
const INSTRUCTIONS =
  'Tools from the Gateway, filtered by your role. Tools that change data ask you to approve first.';

/**
 * The SDK's server, closing without a stack trace: every 2026-07-28 request closes its server,
 * and closing builds a "Connection closed" error for the requests still waiting on it (none,
 * once a request is answered). Capturing that error's stack was ~5% of a call's CPU time; the
 * error's name and message are all a closed connection needs to tell.
 */
class ToolServer extends Server {
  /** Called once the server closed. */
  closed: (() => void) | undefined;

  protected override _onclose(): void {
    this.closed?.();
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/**
 * A small low-level MCP server for one request (or one 2025 session) of `principal`: it answers
 * `tools/list` from the principal's cached tool list (on a discovery endpoint, the meta-tools) and
 * `tools/call` through {@link callTool}.
 * Nothing per tool is built here, so a server costs the same however many tools exist. When
 * upstream sources the principal sees offer resources, prompts or completions, the server
 * declares those and serves them (`federation/`); it declares nothing of them otherwise.
 */
export async function createToolServer(
  runtime: McpRuntime,
  principal: McpPrincipal,
  kind: ConnectionKind,
  sessionLevel: SessionLogLevel = localLogLevel(),
): Promise<Server> {
  // A caller whose tools cannot be resolved (a user deleted meanwhile) is told so by
  // `tools/list`; its server offers nothing more.
  const sources = await visibleSources(runtime, principal).catch(() => []);
  const federated = federatedCapabilities(sources, kind);
  const server = new ToolServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {}, ...federated },
    instructions: INSTRUCTIONS,
    requestState: { verify: runtime.codec.verify },
    inputRequired: { roundTimeoutMs: runtime.options.approvalTimeoutMs },
  });
  const site: CallSite = {
    principal,
    kind,
    clientCapabilities: () => server.getClientCapabilities(),
    ...(kind === 'session' ? { sessionLogLevel: () => sessionLevel.get() } : {}),
  };
  server.setRequestHandler('tools/list', async () => {
    const { index, mode } = await toolsOf(runtime, principal, kind !== 'session').catch(
      unavailableAsProtocolError,
    );
    const list = mode === 'discovery' ? META_TOOLS : index.list;
    // A session is told of a catalog change only when what it was served changes.
    if (kind === 'session') runtime.served.remember(server, list);
    return { tools: [...list] };
  });
  server.setRequestHandler('tools/call', (request, ctx) => {
    const served = ctx.http?.req;
    // A call that started without the session's transport and now needs its stream.
    const handover = served === undefined ? undefined : runtime.handovers.get(served);
    if (handover !== undefined) return handover(ctx).catch(unavailableAsProtocolError);
    return callTool(runtime, callSiteOf(runtime, site, served), request.params, ctx).catch(
      unavailableAsProtocolError,
    );
  });
  const notices = kind === 'session' ? runtime.notices : undefined;
  serveFederated(server, runtime, principal, federated, notices);
  if (notices !== undefined && Object.keys(federated).length > 0) {
    notices.add(server, principal);
    server.closed = () => notices.remove(server);
  }
  if (kind === 'session') {
    // Plugin log lines reach a 2025 client only once it asked for them, at the level it asked.
    server.setRequestHandler('logging/setLevel', async (request) => {
      const level = asLogLevel(request.params.level);
      if (level !== undefined) await sessionLevel.set(level);
      return {};
    });
  }
  return server;
}

/**
 * `site` for a call carried by `request`: on a 2025 session, with the principal authenticated for
 * that request (see {@link CallSite.authenticated}), when the session layer noted it.
 */
function callSiteOf(runtime: McpRuntime, site: CallSite, request: Request | undefined): CallSite {
  if (site.kind !== 'session' || request === undefined) return site;
  const authenticated = runtime.requestPrincipals.get(request);
  return authenticated === undefined ? site : { ...site, authenticated };
}

/**
 * A request the database could not serve, answered inside the MCP session (whose HTTP answer may
 * already be a stream) as a JSON-RPC error a client can show; anything else as it was.
 */
function unavailableAsProtocolError(error: unknown): never {
  if (isDatabaseUnavailable(error)) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      "The gateway's database is unavailable for the moment; retry shortly",
    );
  }
  throw error;
}

/**
 * The log level a 2025 session's client asked for. A session on one instance keeps it in memory;
 * a session shared by instances also stores it, so the other instances serve it too.
 */
export interface SessionLogLevel {
  get(): LoggingLevel | undefined;
  /** The client asked for `level` (`logging/setLevel`). */
  set(level: LoggingLevel): void | Promise<void>;
  /** Another instance's copy of the session was asked for `level`: only take it over. */
  follow?(level: LoggingLevel): void;
}

/** A {@link SessionLogLevel} kept in memory, starting at `initial`. */
export function localLogLevel(initial?: LoggingLevel): SessionLogLevel {
  let level = initial;
  return {
    get: () => level,
    set: (next) => {
      level = next;
    },
  };
}
