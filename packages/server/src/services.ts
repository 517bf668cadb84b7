import type { ApprovalService } from './approvals/index.js';
import type { GatewayAuth } from './auth/index.js';
import type { Env } from './config/env.js';
import type { GatewayDatabase } from './db/index.js';
import type { ExecutionRecorder } from './executions/index.js';
import type { ServerLogger } from './http/logger.js';
import type { Redactor } from './http/redact.js';
import type { SignupPolicy } from './invites/index.js';
import type { EndpointScopes } from './mcp-endpoints/index.js';
import type { PolicyService } from './policy/index.js';
import type { PluginCatalog } from './registry/index.js';
import type { SecretBox } from './secrets/index.js';
import type { UpstreamService } from './upstream/index.js';
import type { UpstreamOAuthService } from './upstream-oauth/index.js';
import type { TokenVendor } from './vending/index.js';

/** What every feature of the server is built from; made once by `createGateway()`. */
export interface GatewayServices {
  env: Env;
  database: GatewayDatabase;
  secrets: SecretBox;
  logger: ServerLogger;
  redactor: Redactor;
  /** {base_url}, without a trailing slash; read at use time (it takes the port start() binds). */
  readonly baseUrl: string;
  /** {auth_url}, without a trailing slash; read at use time, as `baseUrl`. */
  readonly authBaseUrl: string;
  /** The role of users with none assigned (`GATEWAY_DEFAULT_ROLE`). */
  defaultRoleId: string;
  /** The loaded plugins and the tools mounted by registrations. */
  plugins: PluginCatalog;
  /** Roles, assignments and which tools a user or service account may use. */
  policy: PolicyService;
  /** What each MCP endpoint serves of its user's role (`tools`, `mode`), and its changes. */
  endpointScopes: EndpointScopes;
  /** Sign-in (better-auth): sessions, OAuth providers, rate limits. */
  auth: GatewayAuth;
  /** Vends credentials to tool handlers (`ctx.auth.getToken`). */
  tokens: TokenVendor;
  /** Records every tool call (`GET /api/executions`); writes are batched off the call path. */
  executions: ExecutionRecorder;
  /** Approvals decided through the API, for MCP clients that cannot ask the user themselves. */
  approvals: ApprovalService;
  /** Upstream MCP servers as sources: their connections, tool lists and health. */
  upstreams: UpstreamService;
  /** Per-user OAuth to upstream MCP servers (`auth: { kind: "oauth" }`): connects and tokens. */
  upstreamOAuth: UpstreamOAuthService;
  /** Who may create an account (`GATEWAY_SIGNUP`, `GATEWAY_SIGNUP_EMAIL_DOMAINS`, `GATEWAY_ADMIN_EMAILS`). */
  signup: SignupPolicy;
}
