import type { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { McpOAuthSettings } from '../config/env-mcp-oauth.js';
import type { GatewayDatabase } from '../db/database.js';
import type { AppEnv } from '../http/app-env.js';
import type { ServerLogger } from '../http/logger.js';
import type { Authenticate } from '../identity/index.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { UrlPolicy } from '../upstream/index.js';
import { ClientRegistry } from './clients.js';
import { mountConsentPage } from './consent-page.js';
import { mountOAuthEndpoints, REGISTER_PATH, REVOKE_PATH, TOKEN_PATH } from './endpoints.js';
import { mcpResource, mountMetadata } from './metadata.js';

/** What Gateway's authorization server is built from. */
export interface McpOAuthDeps {
  app: Hono<AppEnv>;
  services: {
    database: GatewayDatabase;
    baseUrl: string;
    policy: PolicyService;
    auth: GatewayAuth;
    logger: ServerLogger;
  };
  authenticate: Authenticate;
  settings: McpOAuthSettings;
  /** The upstream URL policy, which Client ID Metadata Documents are fetched under. */
  policy: UrlPolicy;
}

/** Paths that browser-based clients call from their own origin, without cookies. */
const CROSS_ORIGIN_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  TOKEN_PATH,
  REGISTER_PATH,
  REVOKE_PATH,
];

/**
 * Mounts Gateway's authorization server for its own MCP endpoint (issue 32), unless
 * `GATEWAY_MCP_OAUTH=off`: the metadata documents, the authorization endpoint with its consent
 * page, and the token, registration and revocation endpoints.
 *
 * @example
 * mountMcpOAuth({ app, services, authenticate, settings: settings.mcpOAuth, policy });
 */
export function mountMcpOAuth(deps: McpOAuthDeps): void {
  const { app, services, settings } = deps;
  if (!settings.enabled) return;
  const clients = new ClientRegistry({
    db: services.database.db,
    settings,
    policy: deps.policy,
  });
  // Public endpoints without cookies: any origin may read them (no credentials are allowed).
  const crossOrigin = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Authorization', 'MCP-Protocol-Version'],
    maxAge: 600,
  });
  for (const path of CROSS_ORIGIN_PATHS) app.use(path, crossOrigin);
  mountMetadata(app, () => services.baseUrl);
  mountConsentPage({
    app,
    services,
    authenticate: deps.authenticate,
    clients,
    resource: () => mcpResource(services.baseUrl),
  });
  mountOAuthEndpoints({ app, services, logger: services.logger, clients, settings });
}

export { MCP_SCOPE } from './authorization-request.js';
export { mcpChallenge, mcpResource, RESOURCE_METADATA_PATH } from './metadata.js';
