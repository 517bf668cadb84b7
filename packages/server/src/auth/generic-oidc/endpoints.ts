import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { createDiscovery, type OidcMetadata } from '../../identity/oidc/index.js';
import type { OutageLog } from '../outage-log.js';
import { refuseCallback } from './callback-context.js';
import type { GenericProviderConfig } from './resolve-provider.js';

/** A generic provider's endpoints and keys, once known. */
export interface ProviderEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl?: string | undefined;
  /** Set for OpenID providers. */
  idTokens?: { keys: JWTVerifyGetKey; issuers: string[]; algorithms?: string[] | undefined };
  tokenAuth: 'basic' | 'post';
  /** RFC 9207: the provider puts `iss` on its authorization responses. */
  issParameter: boolean;
}

/**
 * The provider's configuration cannot be completed (discovery failing, an endpoint missing), or
 * it could not be reached. Token vending tells it by name (this module loads with better-auth)
 * and words it as an outage, not as an expired sign-in.
 */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/** How a generic provider finds its endpoints, before each use. */
export interface EndpointResolver {
  /** @throws {ProviderUnavailableError} when discovery fails or an endpoint is missing. */
  resolve(): Promise<ProviderEndpoints>;
  /** {@link EndpointResolver.resolve} in a callback: a failure also refuses it and is reported. */
  resolveOrRefuse(): Promise<ProviderEndpoints>;
}

/**
 * The endpoints of a generic provider: configured ones, else discovered from its issuer (retried
 * with backoff, never remembered as a failure, so a provider that was down at startup works as
 * soon as it is back). The JWKS is fetched through one key set per URL.
 *
 * @example
 * const { tokenUrl } = await endpointResolver(config, outages).resolve();
 */
export function endpointResolver(
  config: GenericProviderConfig,
  outages: OutageLog,
): EndpointResolver {
  const discovery =
    config.discoverFrom === undefined
      ? undefined
      : createDiscovery({ issuer: config.discoverFrom });
  let keysFor: { url: string; keys: JWTVerifyGetKey } | undefined;
  const keys = (url: string) => {
    if (keysFor?.url !== url) keysFor = { url, keys: createRemoteJWKSet(new URL(url)) };
    return keysFor.keys;
  };
  const discovered = () =>
    discovery?.metadata().catch((error: unknown) => {
      throw new ProviderUnavailableError(error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    });
  const resolve = async () => endpointsOf(config, await discovered(), keys);
  return {
    resolve,
    async resolveOrRefuse() {
      try {
        return await resolve();
      } catch (error) {
        refuseCallback('provider_unavailable');
        outages.report(config.id, error instanceof Error ? error.message : String(error));
        throw error;
      }
    },
  };
}

/** The endpoints `config` names, completed from the discovered `metadata`. */
function endpointsOf(
  config: GenericProviderConfig,
  metadata: OidcMetadata | undefined,
  keys: (url: string) => JWTVerifyGetKey,
): ProviderEndpoints {
  const openid = config.issuers !== undefined;
  const authorizationUrl = config.authorizationUrl ?? metadata?.authorization_endpoint;
  const tokenUrl = config.tokenUrl ?? metadata?.token_endpoint;
  const jwksUrl = config.jwksUrl ?? metadata?.jwks_uri;
  if (authorizationUrl === undefined || tokenUrl === undefined) {
    throw new ProviderUnavailableError(`${config.id}: no authorization or token endpoint`);
  }
  if (openid && jwksUrl === undefined) {
    throw new ProviderUnavailableError(`${config.id}: no JWKS to verify ID tokens with`);
  }
  const methods = metadata?.token_endpoint_auth_methods_supported;
  // RFC 8414 2: an absent list means client_secret_basic.
  const metadataAuth =
    methods === undefined || methods.includes('client_secret_basic') ? 'basic' : 'post';
  return {
    authorizationUrl,
    tokenUrl,
    userInfoUrl: config.userInfoUrl ?? metadata?.userinfo_endpoint,
    ...(openid && jwksUrl !== undefined
      ? {
          idTokens: {
            keys: keys(jwksUrl),
            issuers: metadata ? [metadata.issuer] : [...(config.issuers ?? [])],
            algorithms: metadata?.id_token_signing_alg_values_supported,
          },
        }
      : {}),
    tokenAuth: config.tokenAuth ?? (metadata === undefined ? 'basic' : metadataAuth),
    issParameter: metadata?.authorization_response_iss_parameter_supported === true,
  };
}
