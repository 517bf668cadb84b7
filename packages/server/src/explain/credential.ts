import type { AuthProvider } from '@gateway/sdk';
import { serverApiKey } from '../config/env.js';
import { listTeamConnections } from '../connections/team-store.js';
import type { MountedTool } from '../registry/index.js';
import type { GatewayServices } from '../services.js';
import { toolStatus } from '../tool-status/index.js';
import type { CredentialExplanation } from './schemas.js';

type Services = Pick<
  GatewayServices,
  'database' | 'env' | 'plugins' | 'policy' | 'auth' | 'upstreams' | 'upstreamOAuth'
>;

const SAID = {
  connection: 'your own connection',
  team_connection: 'a team connection an admin made',
  oauth: 'the account you signed in with',
  api_key: 'the server key',
} as const;

function providersOf(services: Services, tool: MountedTool): AuthProvider[] {
  const declared =
    services.plugins.plugin(tool.pluginId)?.authProviders ??
    (tool.source.kind === 'mcp' ? tool.source.credentials.authProviders : []);
  return tool.authProvider === undefined
    ? [...declared]
    : declared.filter((entry) => entry.id === tool.authProvider);
}

/**
 * Which credential a call of `tool` by user `userId` would take now, in token-vending order (own
 * connection, team connection, sign-in account, server key), from the Tools tab's status.
 */
export async function userCredential(
  services: Services,
  userId: string,
  tool: MountedTool,
): Promise<CredentialExplanation> {
  const providers = providersOf(services, tool);
  if (providers.length === 0) {
    return {
      source: 'not_needed',
      provider: null,
      required: false,
      why: 'The tool takes no credential',
    };
  }
  const status = await toolStatus(services, userId);
  const entries = status.plugins
    .filter((plugin) => plugin.tools.some((item) => item.path === tool.path))
    .flatMap((plugin) => plugin.providers)
    .filter((entry) => providers.some((provider) => provider.id === entry.id));
  const serving = entries.find((entry) => entry.source !== null);
  if (serving?.source) {
    return {
      source: serving.source,
      provider: serving.id,
      required: tool.authProvider !== undefined,
      why: `"${serving.id}" is served by ${SAID[serving.source]}`,
    };
  }
  const first = entries[0] ?? { id: providers[0]?.id ?? '', state: 'none' };
  return {
    source: 'none',
    provider: first.id,
    required: tool.authProvider !== undefined,
    why:
      first.state === 'reconnect'
        ? `The provider refused to renew the linked "${first.id}" account: reconnect it`
        : `No connection, team connection, sign-in account or server key serves "${first.id}": connect it (gateway connect ${first.id})`,
  };
}

/**
 * Which credential a service account's call of `tool` would take: a team connection, else the
 * server key (it has no connection or sign-in of its own; an upstream's OAuth serves users only).
 */
export async function serviceAccountCredential(
  services: Services,
  tool: MountedTool,
): Promise<CredentialExplanation> {
  const providers = providersOf(services, tool);
  if (providers.length === 0) {
    return {
      source: 'not_needed',
      provider: null,
      required: false,
      why: 'The tool takes no credential',
    };
  }
  const team = new Set((await listTeamConnections(services.database.db)).map((row) => row.tool_id));
  for (const provider of providers) {
    if (provider.provider?.startsWith('mcp.') === true) continue;
    if (team.has(provider.id)) {
      return {
        source: 'team_connection',
        provider: provider.id,
        required: tool.authProvider !== undefined,
        why: `"${provider.id}" is served by ${SAID.team_connection}`,
      };
    }
    if (serverApiKey(services.env, provider.id) !== undefined) {
      return {
        source: 'api_key',
        provider: provider.id,
        required: tool.authProvider !== undefined,
        why: `"${provider.id}" is served by ${SAID.api_key}`,
      };
    }
  }
  const id = providers[0]?.id ?? '';
  return {
    source: 'none',
    provider: id,
    required: tool.authProvider !== undefined,
    why: `A service account has no connection of its own, and no team connection or server key serves "${id}"`,
  };
}
