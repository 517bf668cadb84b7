/** The environment variables of Gateway's own authorization server (see env.ts for the others). */
import { type Env, list, value } from './env.js';

/** The settings of the authorization server of the MCP endpoint (`mcp-oauth/`). */
export interface McpOAuthSettings {
  /** `GATEWAY_MCP_OAUTH`: off removes the metadata and every OAuth endpoint. */
  enabled: boolean;
  /** `GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS`: how long a `gw_oat_` access token works. */
  accessTokenSeconds: number;
  /** `GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS`: how long a refresh token works unused. */
  refreshTokenDays: number;
  /**
   * `GATEWAY_MCP_OAUTH_REDIRECT_HOSTS`: the only host names an https redirect URI may name
   * (loopback redirects of native apps are always allowed); empty: any.
   */
  redirectHosts: readonly string[];
  /**
   * `GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS`: the only origins a Client ID Metadata Document may
   * come from; empty: any that the URL policy allows.
   */
  clientIdOrigins: readonly string[];
  /**
   * Accept `http://` client id URLs on loopback addresses. Tests only (a document served by the
   * test itself); no variable sets it, and the URL policy must allow loopback too
   * (`GATEWAY_UPSTREAM_ALLOW_PRIVATE`).
   */
  allowLoopbackHttpClientIds: boolean;
  /**
   * Limits of fetching a Client ID Metadata Document (through the upstream URL policy): its
   * largest size and the time the whole fetch may take. Default 16 KiB and 5 s; no variable.
   */
  clientIdFetch: { maxBytes: number; timeoutMs: number };
}

/**
 * The authorization server's settings from `env`:
 * - `GATEWAY_MCP_OAUTH`: `on` (default) or `off`;
 * - `GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS`: access token lifetime, 60..86400, default 3600;
 * - `GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS`: refresh token lifetime, 1..3650, default 30;
 * - `GATEWAY_MCP_OAUTH_REDIRECT_HOSTS`, `GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS`: comma-separated.
 *
 * @throws Error naming the variable when a value is malformed.
 */
export function mcpOAuthSettings(env: Env): McpOAuthSettings {
  const switchValue = value(env, 'GATEWAY_MCP_OAUTH')?.toLowerCase();
  if (switchValue !== undefined && switchValue !== 'on' && switchValue !== 'off') {
    throw new Error(`GATEWAY_MCP_OAUTH must be on or off, got "${switchValue}"`);
  }
  const origins = list(env, 'GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS') ?? [];
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin) {
      throw new Error(
        `GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS must list origins such as https://claude.ai, got "${origin}"`,
      );
    }
  }
  return {
    enabled: switchValue !== 'off',
    accessTokenSeconds: wholeNumber(
      env,
      'GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS',
      3600,
      60,
      86_400,
    ),
    refreshTokenDays: wholeNumber(env, 'GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS', 30, 1, 3650),
    redirectHosts: list(env, 'GATEWAY_MCP_OAUTH_REDIRECT_HOSTS') ?? [],
    clientIdOrigins: origins,
    allowLoopbackHttpClientIds: false,
    clientIdFetch: { maxBytes: 16 * 1024, timeoutMs: 5000 },
  };
}

function wholeNumber(env: Env, name: string, unset: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return unset;
  const parsed = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return parsed;
}
