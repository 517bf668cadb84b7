import type { BetterAuthPlugin } from 'better-auth';
import type { ServerLogger } from '../../http/logger.js';
import type { OutageLog } from '../outage-log.js';
import type { GenericProviderConfig } from './resolve-provider.js';

/**
 * better-auth plugin registering the gateway's generic providers as social providers, so
 * better-auth's own sign-in, link and callback routes serve them. It replaces better-auth's
 * generic OAuth plugin, whose discovery runs once at startup (a failure there leaves the provider
 * out until a sign-in retries it) and whose ID tokens are only verified with discovery.
 */
export function genericOidc(
  configs: readonly GenericProviderConfig[],
  logger: ServerLogger,
  outages: OutageLog,
): BetterAuthPlugin {
  return {
    id: 'gateway-generic-oidc',
    // The providers' module (better-auth's OAuth helpers, jose) loads with better-auth, not at start.
    init: async (ctx) => {
      const { createGenericProvider } = await import('./generic-provider.js');
      for (const config of configs) {
        for (const warning of config.warnings) logger.warn(warning, { providerId: config.id });
      }
      return {
        context: {
          socialProviders: [
            ...configs.map((config) => createGenericProvider(config, logger, outages)),
            ...ctx.socialProviders,
          ],
        },
      };
    },
  };
}
