import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerLogger } from '../http/logger.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import type { UpstreamOAuthClient } from './clients.js';
import { ConnectError, type ConnectReturn } from './connect-error.js';
import { OAuthDiscoveryError } from './discovery.js';
import { createOAuthFetch } from './oauth-fetch.js';
import { oauthClient } from './sdk.js';

/** What redeeming a connect's authorization code takes. */
export interface RedeemCode {
  issuer: string;
  client: UpstreamOAuthClient;
  code: string;
  codeVerifier: string;
  /** The upstream's resource (RFC 8707), asked for again at the token endpoint. */
  resource: string;
  /** The flow: its source, and where the browser goes when redeeming fails. */
  flow: { sourceId: string; returnTo: ConnectReturn };
}

/**
 * Redeems a connect's authorization code at the upstream's token endpoint (PKCE verifier,
 * `resource`), through the URL policy; only a Bearer token is kept.
 *
 * @throws ConnectError `token_failed` saying why, without the authorization server's answer (which
 *   is logged by kind only).
 */
export async function redeemCode(
  input: RedeemCode,
  policy: UrlPolicy,
  logger: ServerLogger,
): Promise<OAuthTokens> {
  const { client, flow } = input;
  const oauthFetch = createOAuthFetch(policy);
  let tokens: OAuthTokens;
  try {
    tokens = await (await oauthClient()).exchangeAuthorization(input.issuer, {
      metadata: client.metadata,
      clientInformation: {
        client_id: client.clientId,
        ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
      },
      authorizationCode: input.code,
      codeVerifier: input.codeVerifier,
      redirectUri: client.redirectUri,
      ...(input.resource === '' ? {} : { resource: new URL(input.resource) }),
      fetchFn: oauthFetch.fetch,
    });
  } catch (failure) {
    logger.warn('upstream OAuth code not redeemed', {
      sourceId: flow.sourceId,
      reason:
        failure instanceof OAuthDiscoveryError
          ? failure.message
          : failure instanceof Error
            ? failure.name
            : 'unknown',
    });
    throw new ConnectError(
      'token_failed',
      "The upstream's authorization server did not answer with a usable token, so nothing was stored. Try again, or tell your admin.",
      flow,
    );
  } finally {
    await oauthFetch.close();
  }
  if (tokens.token_type.toLowerCase() !== 'bearer') {
    throw new ConnectError(
      'token_failed',
      `The authorization server issued a ${tokens.token_type.slice(0, 30)} token; the gateway sends Bearer tokens only.`,
      flow,
    );
  }
  return tokens;
}
