/**
 * Every `/api` route, built on the first request to one (issue 37): a start builds none of their
 * request and response schemas (the SDK's contract among them) before its first answer. Imported
 * only through `import()`; `api-route-list.ts` names the routes the gateway registers meanwhile.
 */
import { approvalRoutes } from './approvals/routes.js';
import { cliTokenRoutes } from './cli-auth/token-routes.js';
import { connectionRoutes } from './connections/routes.js';
import { connectorRoutes } from './connectors/routes.js';
import { executionRoutes } from './executions/routes.js';
import { explainRoutes } from './explain/routes.js';
import type { GatewaySettings } from './gateway-settings.js';
import type { AnyRoute } from './http/route.js';
import { inviteRoutes } from './invites/routes.js';
import { mcpEndpointRoutes } from './mcp-endpoints/routes.js';
import { meRoutes } from './me/routes.js';
import { openApiRoutes } from './openapi/routes.js';
import { overviewRoutes } from './overview/routes.js';
import { policyRoutes } from './policy/routes.js';
import { providerClientRoutes } from './provider-clients/routes.js';
import { ProviderClientsService } from './provider-clients/service.js';
import type { ProviderClientStore } from './provider-clients/store.js';
import { registryRoutes } from './registry/routes.js';
import { rolePreviewRoutes } from './role-preview/routes.js';
import { serviceAccountRoutes } from './service-accounts/routes.js';
import type { GatewayServices } from './services.js';
import { teamConnectionRoutes } from './team-connections/routes.js';
import { toolStatusRoutes } from './tool-status/routes.js';
import { pluginOAuthProviders } from './upstream-oauth/plugin-providers.js';
import { userRoutes } from './users/routes.js';

/**
 * Every `/api` route: each feature contributes its own, in the order they are matched.
 *
 * @example
 * const routes = apiRoutes(services, settings, providerClients);
 */
export function apiRoutes(
  services: GatewayServices,
  settings: GatewaySettings,
  providerClients: ProviderClientStore,
): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...connectionRoutes(services),
    ...mcpEndpointRoutes(services),
    ...registryRoutes(services),
    ...policyRoutes(services),
    ...connectorRoutes(services),
    ...teamConnectionRoutes(services),
    ...cliTokenRoutes(services, { tokenDays: settings.cliTokenDays }),
    ...serviceAccountRoutes(services),
    ...providerClientRoutes({
      providerClients: new ProviderClientsService({
        env: services.env,
        store: providerClients,
        logger: services.logger,
        baseUrl: () => services.baseUrl,
        providers: () => pluginOAuthProviders(services.plugins.plugins()),
        upstreamOAuth: services.upstreamOAuth,
      }),
    }),
    ...executionRoutes(services),
    ...overviewRoutes(services),
    ...approvalRoutes(services),
    ...userRoutes(services),
    ...meRoutes(services),
    ...toolStatusRoutes(services),
    ...rolePreviewRoutes(services),
    ...explainRoutes(services),
    ...inviteRoutes(services),
    ...openApiRoutes({ routes: () => routes, baseUrl: () => services.baseUrl }),
  ];
  return routes;
}
