/**
 * The v1 MCP SDK's OAuth client helpers and metadata schemas, loaded with the first upstream
 * OAuth flow, refresh or stored client read instead of at start (issue 17 item 5; guarded by
 * start-up.test.ts). Each call after the first is the module already loaded.
 *
 * @example
 * const { startAuthorization } = await oauthClient();
 */
export const oauthClient = () => import('@modelcontextprotocol/sdk/client/auth.js');

/** The SDK's OAuth metadata schemas (RFC 8414, OpenID discovery). */
export const oauthSchemas = () => import('@modelcontextprotocol/sdk/shared/auth.js');

/** The SDK's resource-indicator checks. */
export const oauthUtils = () => import('@modelcontextprotocol/sdk/shared/auth-utils.js');
