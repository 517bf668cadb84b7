import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { MCP_SCOPE } from './authorization-request.js';
import { AUTHORIZE_PATH } from './consent-page.js';
import { REGISTER_PATH, REVOKE_PATH, TOKEN_PATH } from './endpoints.js';

/** Where the protected resource metadata of `{base_url}/mcp` is (RFC 9728 section 3.1). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** The MCP endpoint's resource identifier: what tokens are bound to (RFC 8707). */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/mcp`;
}

/**
 * The `WWW-Authenticate` challenge of a 401 (or 403) from `/mcp` (RFC 6750 section 3, RFC 9728
 * section 5.1): where the resource metadata is, the scope needed, and the error when a token was
 * sent.
 *
 * @example
 * mcpChallenge('https://gw.example.com', { error: 'invalid_token', description: 'expired' });
 */
export function mcpChallenge(
  baseUrl: string,
  error?: { error: 'invalid_token' | 'insufficient_scope'; description: string },
): string {
  const parts = [`resource_metadata="${baseUrl}${RESOURCE_METADATA_PATH}"`, `scope="${MCP_SCOPE}"`];
  if (error !== undefined) {
    parts.push(
      `error="${error.error}"`,
      `error_description="${error.description.replaceAll('"', "'")}"`,
    );
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * The metadata documents: the protected resource's (RFC 9728, at the path form for `/mcp` and at
 * the root) and the authorization server's (RFC 8414, issuer `{base_url}`). Public, cacheable for
 * a few minutes, readable cross-origin (browser-based clients discover with them).
 */
export function mountMetadata(app: Hono<AppEnv>, baseUrl: () => string): void {
  const resourceMetadata = () => ({
    resource: mcpResource(baseUrl()),
    authorization_servers: [baseUrl()],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Gateway',
  });
  const headers = { 'Cache-Control': 'public, max-age=300' };
  app.get(RESOURCE_METADATA_PATH, (c) => c.json(resourceMetadata(), 200, headers));
  app.get('/.well-known/oauth-protected-resource', (c) => c.json(resourceMetadata(), 200, headers));
  app.get('/.well-known/oauth-authorization-server', (c) => {
    const base = baseUrl();
    return c.json(
      {
        issuer: base,
        authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
        token_endpoint: `${base}${TOKEN_PATH}`,
        registration_endpoint: `${base}${REGISTER_PATH}`,
        revocation_endpoint: `${base}${REVOKE_PATH}`,
        scopes_supported: [MCP_SCOPE],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      },
      200,
      headers,
    );
  });
}
