import type {
  AuthorizationServerMetadata,
  OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UpstreamHttpError } from '../upstream/http-error.js';
import { RefusedAddressError, type UrlPolicy } from '../upstream/url-policy.js';
import { checkOAuthUrl, OAuthUrlError } from './oauth-fetch.js';
import { oauthClient, oauthUtils } from './sdk.js';

/** What the gateway learned of an upstream's authorization, checked. */
export interface Discovered {
  /** The resource indicator (RFC 8707) tokens are asked for: the upstream's canonical URL. */
  resource: string;
  /** The authorization server's issuer identifier, as its metadata states and as fetched. */
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** The scopes to ask for, space-separated, or undefined for the server's default. */
  scope: string | undefined;
}

/**
 * Why an upstream's authorization could not be discovered or used: `refused` when its metadata
 * breaks a rule (another resource, an issuer mismatch, a refused address, no PKCE), `unreachable`
 * when a host did not answer usably.
 */
export class OAuthDiscoveryError extends Error {
  constructor(
    readonly kind: 'refused' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthDiscoveryError';
  }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'gateway', version: '1' },
  },
});

/**
 * Discovers how to get a token for the upstream MCP server at `upstreamUrl`, per the MCP
 * authorization spec: its `401` answer's `WWW-Authenticate: Bearer resource_metadata=...` (else
 * the RFC 9728 well-known URL), its protected resource metadata (whose `resource` must be the
 * upstream, same origin and a prefix of its path), the first authorization server named there,
 * and that server's metadata (RFC 8414, else OpenID discovery) whose `issuer` must be the server
 * it was fetched for, with PKCE S256. Every URL is checked with {@link checkOAuthUrl} before use.
 *
 * @example
 * const { issuer, metadata, resource } = await discoverAuthorization(url, { fetch, policy });
 *
 * @throws OAuthDiscoveryError saying what was wrong, never a token or a raw answer.
 */
export async function discoverAuthorization(
  upstreamUrl: string,
  options: { fetch: FetchLike; policy: UrlPolicy; scopes?: readonly string[] | undefined },
): Promise<Discovered> {
  const { fetch, policy } = options;
  try {
    const challenge = await probeChallenge(upstreamUrl, fetch);
    const resourceMetadata = await protectedResourceMetadata(upstreamUrl, challenge, options);
    const server = resourceMetadata.authorization_servers?.[0];
    if (server === undefined) {
      throw new OAuthDiscoveryError(
        'refused',
        "The upstream's protected resource metadata names no authorization server",
      );
    }
    const metadata = await authorizationServerMetadata(server, fetch, policy);
    const scope =
      options.scopes !== undefined && options.scopes.length > 0
        ? options.scopes.join(' ')
        : (challenge.scope ?? resourceMetadata.scopes_supported?.join(' '));
    return {
      resource: resourceMetadata.resource,
      issuer: metadata.issuer,
      metadata,
      scope: scope === '' ? undefined : scope,
    };
  } catch (error) {
    throw asDiscoveryError(error);
  }
}

/** What an upstream's `401` says in `WWW-Authenticate` to an `initialize` sent with no token. */
async function probeChallenge(
  upstreamUrl: string,
  fetch: FetchLike,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const { extractWWWAuthenticateParams } = await oauthClient();
  const probe = await fetch(upstreamUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: INITIALIZE,
  });
  await probe.body?.cancel().catch(() => {});
  return probe.status === 401 ? extractWWWAuthenticateParams(probe) : {};
}

/**
 * The upstream's protected resource metadata (RFC 9728), from the address its challenge named,
 * else the well-known one; it must describe the upstream itself.
 */
async function protectedResourceMetadata(
  upstreamUrl: string,
  challenge: { resourceMetadataUrl?: URL },
  options: { fetch: FetchLike; policy: UrlPolicy },
): Promise<OAuthProtectedResourceMetadata> {
  const { discoverOAuthProtectedResourceMetadata } = await oauthClient();
  const { checkResourceAllowed } = await oauthUtils();
  const metadataUrl =
    challenge.resourceMetadataUrl === undefined
      ? undefined
      : checkOAuthUrl(
          challenge.resourceMetadataUrl.href,
          'the protected resource metadata URL',
          options.policy,
        );
  const resourceMetadata = await discoverOAuthProtectedResourceMetadata(
    upstreamUrl,
    metadataUrl === undefined ? {} : { resourceMetadataUrl: metadataUrl },
    options.fetch,
  ).catch(
    refusedUnless('The upstream publishes no usable OAuth protected resource metadata (RFC 9728)'),
  );
  if (
    !checkResourceAllowed({
      requestedResource: upstreamUrl,
      configuredResource: resourceMetadata.resource,
    })
  ) {
    throw new OAuthDiscoveryError(
      'refused',
      `The upstream's protected resource metadata describes another resource (${clip(resourceMetadata.resource)}), not ${upstreamUrl}`,
    );
  }
  return resourceMetadata;
}

/**
 * The metadata of the authorization server `server` (RFC 8414, else OpenID discovery): its issuer
 * must be `server`, its endpoints addresses the gateway may reach, with PKCE S256 and codes.
 */
async function authorizationServerMetadata(
  server: string,
  fetch: FetchLike,
  policy: UrlPolicy,
): Promise<AuthorizationServerMetadata> {
  const { discoverAuthorizationServerMetadata } = await oauthClient();
  const issuerUrl = checkOAuthUrl(server, 'the authorization server', policy);
  const metadata = await discoverAuthorizationServerMetadata(issuerUrl, { fetchFn: fetch }).catch(
    refusedUnless(
      `The authorization server ${issuerUrl.origin} answered metadata that is not valid`,
    ),
  );
  if (metadata === undefined) {
    throw new OAuthDiscoveryError(
      'refused',
      `The authorization server ${issuerUrl.origin} publishes no metadata (RFC 8414 or OpenID discovery)`,
    );
  }
  if (trimSlash(metadata.issuer) !== trimSlash(server)) {
    throw new OAuthDiscoveryError(
      'refused',
      `The authorization server's metadata names another issuer (${clip(metadata.issuer)}) than ${server} it was fetched for (RFC 8414 section 3.3)`,
    );
  }
  checkOAuthUrl(metadata.authorization_endpoint, 'the authorization endpoint', policy);
  checkOAuthUrl(metadata.token_endpoint, 'the token endpoint', policy);
  if (metadata.registration_endpoint !== undefined) {
    checkOAuthUrl(metadata.registration_endpoint, 'the registration endpoint', policy);
  }
  if (!(metadata.code_challenge_methods_supported ?? []).includes('S256')) {
    throw new OAuthDiscoveryError(
      'refused',
      'The authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)',
    );
  }
  if (!metadata.response_types_supported.includes('code')) {
    throw new OAuthDiscoveryError(
      'refused',
      'The authorization server does not support the authorization code flow',
    );
  }
  return metadata;
}

/** The error as an {@link OAuthDiscoveryError}, in the gateway's words. */
export function asDiscoveryError(error: unknown): OAuthDiscoveryError {
  if (error instanceof OAuthDiscoveryError) return error;
  if (error instanceof OAuthUrlError) {
    return new OAuthDiscoveryError(
      'refused',
      `The upstream's OAuth metadata names a URL the gateway does not use: ${error.message}`,
    );
  }
  if (error instanceof UpstreamHttpError) {
    return new OAuthDiscoveryError(
      'refused',
      `An OAuth metadata host ${error.kind === 'redirect' ? 'answered a redirect, which the gateway does not follow' : 'sent an answer too large'}`,
    );
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof RefusedAddressError || cause instanceof RefusedAddressError) {
    const refused = error instanceof RefusedAddressError ? error : (cause as RefusedAddressError);
    return new OAuthDiscoveryError(
      'refused',
      `The upstream's OAuth metadata names a host the gateway does not reach: ${refused.message}`,
    );
  }
  return new OAuthDiscoveryError(
    'unreachable',
    'The upstream or its authorization server cannot be reached',
  );
}

/** Rethrows a URL refusal or a network failure as it is; anything else is `message`. */
function refusedUnless(message: string): (error: unknown) => never {
  return (error) => {
    const cause = error instanceof Error ? error.cause : undefined;
    if (
      error instanceof OAuthUrlError ||
      error instanceof UpstreamHttpError ||
      error instanceof RefusedAddressError ||
      cause instanceof RefusedAddressError ||
      isNetworkError(error)
    ) {
      throw error;
    }
    throw new OAuthDiscoveryError('refused', message);
  };
}

/** A connection that failed or timed out, as opposed to an answer that was wrong. */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('E') || code.startsWith('UND_ERR'));
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
